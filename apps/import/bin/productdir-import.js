#!/usr/bin/env node
// Committed launcher: npm links bins at install time, before the build creates dist/.
import "../dist/main.js"

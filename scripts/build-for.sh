#!/usr/bin/env bash
# Builds one package and what it depends on before an npm script runs its program (npm start, npm run import, …).
# Quietly: turbo's banner and summary would land on the program's stderr (or stdout) beside its own output; they
# are shown only when the build fails, with the build's errors.
set -uo pipefail
out=$(TURBO_TELEMETRY_DISABLED=1 turbo run build --filter="$1..." --output-logs=errors-only 2>&1) || {
  printf '%s\n' "$out" >&2
  exit 1
}

/**
 * The API reference page at /docs, rendered on the server from the OpenAPI document: every
 * operation by group (its parameters, body and answers) and every schema, as plain HTML with its
 * own small style sheet. No script and nothing from another origin: a bundled viewer such as Scalar's
 * is megabytes of script whose toolbar and fonts call its vendor's site; this one is a few dozen KB,
 * readable without JavaScript, and what a browser loads from it is this server's favicon alone.
 */
import type { JsonSchema } from "effect"
import type { OpenApi } from "effect/http-api"
import { describedBy } from "@productdir/edge/catalogGuide"

type Json = JsonSchema.JsonSchema

const html = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** The little markdown the descriptions use: `code` and [links](…). */
const prose = (text: string): string =>
  html(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>')

const textOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
const schemasOf = (value: unknown): ReadonlyArray<Json> =>
  Array.isArray(value) ? value.filter((item): item is Json => typeof item === "object" && item !== null) : []
const schemaOf = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined

const anchor = (name: string) => `schema-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`
const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1)

/** Limits worth telling a caller; the character-class patterns of free text are not. */
const limits = (schema: Json): ReadonlyArray<string> => {
  const out: Array<string> = []
  const characters = (n: number) => `${n} character${n === 1 ? "" : "s"}`
  if (typeof schema.minLength === "number" && schema.minLength > 0) out.push(`at least ${characters(schema.minLength)}`)
  if (typeof schema.maxLength === "number") out.push(`at most ${characters(schema.maxLength)}`)
  if (typeof schema.minimum === "number") out.push(`≥ ${schema.minimum}`)
  // The largest safe integer is the bound of every count: not worth a word.
  if (typeof schema.maximum === "number" && schema.maximum < Number.MAX_SAFE_INTEGER) out.push(`≤ ${schema.maximum}`)
  if (typeof schema.maxItems === "number") out.push(`at most ${schema.maxItems} items`)
  if (typeof schema.format === "string") out.push(schema.format)
  return out
}

/** One line naming a schema's type, with links to the named schemas it uses. */
const typeOf = (schema: Json): string => {
  const ref = textOf(schema.$ref)
  if (ref !== undefined) return `<a href="#${anchor(refName(ref))}">${html(refName(ref))}</a>`
  const union = schemasOf(schema.anyOf ?? schema.oneOf)
  if (union.length > 0) return union.map(typeOf).join(" | ")
  const all = schemasOf(schema.allOf)
  if (all.length > 0) return all.map(typeOf).join(" &amp; ")
  if ("const" in schema) return `<code>${html(JSON.stringify(schema.const))}</code>`
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => `<code>${html(JSON.stringify(value))}</code>`).join(" | ")
  const type = schema.type
  if (type === "array") {
    const items = schemaOf(schema.items)
    return `array of ${items === undefined ? "any" : typeOf(items)}`
  }
  if (Array.isArray(type)) return type.map((t) => html(String(t))).join(" | ")
  if (typeof type === "string") return html(type)
  return "any"
}

const typeCell = (schema: Json): string => {
  const told = limits(schema)
  return told.length === 0 ? typeOf(schema) : `${typeOf(schema)} <span class="note">(${html(told.join(", "))})</span>`
}

const examplesOf = (schema: Json): string => {
  const examples = Array.isArray(schema.examples) ? schema.examples : []
  return examples.length === 0
    ? ""
    : ` <span class="note">e.g. ${examples.map((e) => `<code>${html(typeof e === "string" ? e : JSON.stringify(e))}</code>`).join(", ")}</span>`
}

/** The fields of an object schema; a field that is itself an inline object gets its own table below it. */
const fieldsTable = (schema: Json, schemas: JsonSchema.Definitions, depth = 0): string => {
  const properties = schemaOf(schema.properties)
  if (properties === undefined || depth > 3) return ""
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const rows = Object.entries(properties).map(([name, value]) => {
    const field = schemaOf(value) ?? {}
    const nested = field.$ref === undefined ? fieldsTable(field, schemas, depth + 1) : ""
    return `<tr><td><code>${html(name)}</code>${required.has(name) ? "" : ' <span class="note">optional</span>'}</td><td>${typeCell(field)}</td><td>${prose(describedBy(field, schemas))}${examplesOf(field)}${nested}</td></tr>`
  })
  return `<table><thead><tr><th>field</th><th>type</th><th>meaning</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
}

const parametersOf = (operation: OpenApi.OpenAPISpecOperation, schemas: JsonSchema.Definitions): string => {
  if (operation.parameters.length === 0) return ""
  const rows = operation.parameters.map((parameter) => {
    const schema = schemaOf(parameter.schema) ?? {}
    const description = parameter.description ?? describedBy(schema, schemas)
    return `<tr><td><code>${html(parameter.name)}</code> <span class="note">${parameter.in}${parameter.required ? "" : ", optional"}</span></td><td>${typeCell(schema)}</td><td>${prose(description)}${examplesOf(schema)}</td></tr>`
  })
  return `<h4>Parameters</h4><table><thead><tr><th>name</th><th>type</th><th>meaning</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
}

const contentOf = (content: OpenApi.OpenApiSpecContent | undefined): string =>
  Object.entries(content ?? {})
    .map(([type, media]) => `<div><span class="note">${html(type)}</span> ${typeOf(media.schema)}</div>`)
    .join("")

const responsesOf = (operation: OpenApi.OpenAPISpecOperation): string => {
  const rows = Object.entries(operation.responses).map(
    ([status, response]) =>
      `<tr><td><code>${html(status)}</code></td><td>${prose(response.description)}${contentOf(response.content)}</td></tr>`
  )
  return `<h4>Answers</h4><table><thead><tr><th>status</th><th>what</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
}

const operationId = (method: string, path: string) => `op-${method}-${path.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "")}`

interface Entry {
  readonly method: string
  readonly path: string
  readonly operation: OpenApi.OpenAPISpecOperation
}

const METHODS: ReadonlyArray<OpenApi.OpenAPISpecMethodName> = ["get", "post", "put", "patch", "delete"]

const entriesOf = (spec: OpenApi.OpenAPISpec): ReadonlyArray<Entry> =>
  Object.entries(spec.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method]
      return operation === undefined ? [] : [{ method, path, operation }]
    })
  )

const operationHtml = ({ method, path, operation }: Entry, schemas: JsonSchema.Definitions): string => {
  const bearer = operation.security.some((requirement) => Object.keys(requirement).length > 0)
  return `<section class="op" id="${operationId(method, path)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${html(path)}</code></h3>
<p class="summary">${prose(operation.summary ?? "")}</p>
${operation.description === undefined ? "" : `<p>${prose(operation.description)}</p>`}
${bearer ? '<p class="note">Optional: <code>Authorization: Bearer &lt;api_key&gt;</code> (from <code>POST /agents</code>).</p>' : ""}
${parametersOf(operation, schemas)}
${operation.requestBody === undefined ? "" : `<h4>Body</h4>${contentOf(operation.requestBody.content)}`}
${responsesOf(operation)}
</section>`
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b6472;--line:#d8dde3;--bg:#fff;--code:#f2f4f7;--accent:#0f766e}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--muted:#9aa4b2;--line:#39414b;--bg:#14171b;--code:#1f242a;--accent:#2dd4bf}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
.page{display:grid;grid-template-columns:minmax(14rem,18rem) 1fr;gap:2rem;max-width:90rem;margin:0 auto;padding:1.5rem}
nav{position:sticky;top:1rem;align-self:start;max-height:calc(100vh - 2rem);overflow:auto;font-size:.9rem}
nav ul{list-style:none;padding-left:0;margin:.25rem 0 1rem}nav li{margin:.15rem 0}nav h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:.75rem 0 .25rem}
a{color:var(--accent)}h1{margin:0 0 .25rem}h2{margin-top:2.5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
h3{margin:0 0 .25rem;font-size:1.1rem}h4{margin:1rem 0 .25rem;font-size:.95rem}
.op,.schema{border:1px solid var(--line);border-radius:8px;padding:1rem;margin:1rem 0}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);padding:.05em .3em;border-radius:4px}
.method{display:inline-block;min-width:3.6rem;text-align:center;font:600 .8rem ui-monospace,monospace;padding:.15rem .4rem;border-radius:4px;color:#fff;background:#2563eb}
.method.post{background:#15803d}.method.put,.method.patch{background:#b45309}.method.delete{background:#b91c1c}
.summary{font-weight:600;margin:.25rem 0}.note{color:var(--muted);font-size:.85em}
table{border-collapse:collapse;width:100%;margin:.25rem 0;font-size:.9rem}th,td{text-align:left;vertical-align:top;border-top:1px solid var(--line);padding:.35rem .5rem}
th{font-weight:600;color:var(--muted);border-top:none}td table{margin-top:.5rem}
@media (max-width:50rem){.page{grid-template-columns:1fr}nav{position:static;max-height:none}}
`

/** The whole page for an OpenAPI document. */
export const referencePage = (spec: OpenApi.OpenAPISpec): string => {
  const entries = entriesOf(spec)
  const groups = spec.tags.map((tag) => ({ tag, entries: entries.filter((e) => e.operation.tags.includes(tag.name)) }))
  const schemas = Object.entries(spec.components.schemas).sort(([a], [b]) => a.localeCompare(b))
  const nav = groups
    .map(
      ({ tag, entries }) =>
        `<h2>${html(tag.name)}</h2><ul>${entries
          .map((e) => `<li><a href="#${operationId(e.method, e.path)}">${e.method.toUpperCase()} ${html(e.path)}</a></li>`)
          .join("")}</ul>`
    )
    .join("")
  const body = groups
    .map(
      ({ tag, entries }) =>
        `<h2 id="tag-${anchor(tag.name)}">${html(tag.name)}</h2>${tag.description === undefined ? "" : `<p>${prose(tag.description)}</p>`}${entries.map((entry) => operationHtml(entry, spec.components.schemas)).join("\n")}`
    )
    .join("\n")
  const schemaHtml = schemas
    .map(
      ([name, schema]) =>
        `<section class="schema" id="${anchor(name)}"><h3>${html(name)}</h3>${
          textOf(schema.description) === undefined ? "" : `<p>${prose(textOf(schema.description) ?? "")}</p>`
        }${schemaOf(schema.properties) === undefined ? `<p>${typeCell(schema)}</p>` : fieldsTable(schema, spec.components.schemas)}</section>`
    )
    .join("\n")
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(spec.info.title)} ${html(spec.info.version)}: API reference</title>
<meta name="description" content="${html(spec.info.description ?? "")}">
<link rel="icon" href="/favicon.ico">
<style>${STYLE}</style>
</head>
<body>
<div class="page">
<nav aria-label="Operations">${nav}<h2><a href="#schemas">Schemas</a></h2></nav>
<main>
<h1>${html(spec.info.title)} <span class="note">${html(spec.info.version)}</span></h1>
<p>${prose(spec.info.description ?? "")}</p>
<p class="note">The same API as <a href="/openapi.json">/openapi.json</a> (OpenAPI ${html(spec.openapi)}); agents start at <a href="/llms.txt">/llms.txt</a>; <a href="/">GET /</a> lists every path.</p>
${body}
<h2 id="schemas">Schemas</h2>
${schemaHtml}
</main>
</div>
</body>
</html>
`
}

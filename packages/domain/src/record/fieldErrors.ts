/**
 * What was wrong with a request, field by field, in plain words an agent can act on:
 * `direction must be "up" or "down"`, `limit must be a whole number from 1 to 100`,
 * `score is not a field of this request`. Never a schema identifier, never a regular
 * expression. The API decodes with `errors: "all"`, so every wrong field comes at once.
 */
import { type SchemaAST, SchemaIssue } from "effect"
import { fieldRulesOf } from "./fieldRules.ts"

/** What a field that the request does not have is told: the refusals that add a hint (or reword it) match on it. */
export const UNKNOWN_FIELD = "is not a field of this request"

/**
 * The fields an object schema takes (none for another schema): named beside an unknown one, so that a client can
 * send the request again right without reading the schema (a body's fields over HTTP, a tool's arguments over MCP).
 */
export const fieldNamesOf = (ast: SchemaAST.AST | undefined): ReadonlyArray<string> =>
  ast?._tag === "Objects" ? ast.propertySignatures.map((p) => String(p.name)) : []

/** What a field or parameter given more than once is told (a repeated query parameter, a name twice in a body). */
export const GIVEN_TWICE = "is given more than once: send it once"

export interface FieldIssue {
  /** Where: the request slot ("payload", "query", "params") and the field's path inside it. */
  readonly path: ReadonlyArray<string | number>
  /** What is allowed, as the rest of a sentence that starts with the field's name. */
  readonly message: string
}

const quoteAll = (values: ReadonlyArray<unknown>): string => {
  const quoted = values.map((v) => JSON.stringify(v))
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`
}

/** The kind of value a schema takes, as words. */
const describe = (ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "String":
    case "TemplateLiteral":
      return "text"
    case "Number":
      return "a number"
    case "Boolean":
      return "true or false"
    case "Literal":
      return JSON.stringify(ast.literal)
    case "Null":
      return "null"
    case "Objects":
      return ast.propertySignatures.length > 0 ? "an object" : "an object or a list"
    case "Arrays":
      return "a list"
    case "Union": {
      const literals = ast.types.filter((t): t is SchemaAST.Literal => t._tag === "Literal").map((t) => t.literal)
      return literals.length === ast.types.length ? quoteAll(literals) : ast.types.map(describe).join(" or ")
    }
    default:
      return "a valid value"
  }
}

const messageOf = (annotations: { readonly [key: string]: unknown } | undefined): string | undefined =>
  typeof annotations?.message === "string" ? annotations.message : undefined

/** "Expected a value between 1 and 100" → "must be a value between 1 and 100". */
const fromExpected = (expected: unknown): string | undefined => (typeof expected === "string" ? `must be ${expected}` : undefined)

const leafHook = (issue: SchemaIssue.Leaf): string => {
  switch (issue._tag) {
    case "MissingKey":
      return messageOf(issue.annotations) ?? "is required"
    case "UnexpectedKey":
      return UNKNOWN_FIELD
    case "InvalidType":
      // A key whose schema is Never is one the object does not take (a struct with no fields, read strictly).
      if (issue.ast._tag === "Never") return UNKNOWN_FIELD
      return messageOf(issue.ast.annotations) ?? `must be ${describe(issue.ast)}`
    case "InvalidValue": {
      const message = messageOf(issue.annotations)
      // The HTTP layer's own words for a body it could not parse.
      if (message === "Expected a valid JSON body") return "is not valid JSON"
      return message ?? fromExpected(issue.annotations?.expected) ?? "is not a valid value"
    }
    case "Forbidden":
      return "cannot be used here"
    case "OneOf":
      return "matches more than one allowed shape"
  }
}

const checkHook = (issue: SchemaIssue.Filter): string | undefined =>
  messageOf(issue.filter.annotations) ??
  // A filter that answers with a string puts it on its inner issue.
  (issue.issue._tag === "InvalidValue" ? messageOf(issue.issue.annotations) : undefined) ??
  fromExpected(issue.filter.annotations?.expected)

const format = SchemaIssue.makeFormatterStandardSchemaV1({ leafHook, checkHook })

/**
 * A union none of whose members came close (a body that is a list, a string, `null`) is formatted
 * as "Expected <identifier>", past any hook: it is said here as what the union takes instead.
 */
const plainly = (issue: SchemaIssue.Issue): SchemaIssue.Issue => {
  switch (issue._tag) {
    case "AnyOf":
      return issue.issues.length === 0
        ? new SchemaIssue.InvalidType(issue.ast, issue.input)
        : new SchemaIssue.AnyOf(issue.ast, issue.issues.map(plainly), issue.input)
    case "Composite":
      return new SchemaIssue.Composite(issue.ast, [plainly(issue.issues[0]), ...issue.issues.slice(1).map(plainly)], issue.input)
    default:
      return issue
  }
}

const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The breaches of the rules between fields (domain's fieldRules) by the object that was sent: a
 * schema checks them only once every field decoded, so with another field wrong they are found here.
 */
const ruleBreaches = (issue: SchemaIssue.Issue, sent: unknown) => {
  const node = issue as { readonly ast?: SchemaAST.AST; readonly input?: unknown }
  const fields = node.input ?? sent
  if (node.ast === undefined || !isRecord(fields)) return []
  return fieldRulesOf(node.ast).flatMap((rule) => {
    const breach = rule(fields)
    return breach === undefined ? [] : [{ path: breach.path, message: breach.message }]
  })
}

const pathOf = (path: ReadonlyArray<unknown>): Array<string | number> =>
  path.map((p) => {
    const key = typeof p === "object" && p !== null && "key" in p ? (p as { key: unknown }).key : p
    return typeof key === "number" ? key : String(key)
  })

/**
 * Every issue of a decoding failure, its path prefixed with the request slot. `sent` is what was decoded, for
 * the rules between fields when the failure does not carry it (a direct decode's does not; HttpApi's does).
 */
export const fieldErrors = (issue: SchemaIssue.Issue, slot?: string, sent?: unknown): ReadonlyArray<FieldIssue> => {
  const prefix = slot === undefined ? [] : [slot]
  const found = format(plainly(issue)).issues.map((i) => ({ path: [...prefix, ...pathOf(i.path ?? [])], message: i.message }))
  const same = (a: FieldIssue, b: FieldIssue) => a.message === b.message && a.path.join("\u0000") === b.path.join("\u0000")
  const breaches = ruleBreaches(issue, sent)
    .map((b) => ({ path: [...prefix, ...b.path], message: b.message }))
    .filter((b) => !found.some((f) => same(f, b)))
  return [...found, ...breaches]
}

/** What a request's slot is called when the whole of it is wrong. */
const SLOT_NAMES: Record<string, string> = { payload: "the body", query: "the query", params: "the path", headers: "the headers" }

/** `pricing.plans[0].price`: a field's path as its name in a sentence. */
export const fieldName = (path: ReadonlyArray<string | number>): string =>
  path.length === 0 ? "the request" : path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("")

/**
 * Field issues an answer lists at most (a small body of thousands of unknown fields would otherwise get an answer
 * many times its size): the count says how many more.
 */
export const MAX_LISTED_ISSUES = 50

/** Sentences a description holds at most; the answer's `errors` list up to MAX_LISTED_ISSUES. */
const MAX_DESCRIBED = 20

/** `errors`, each issue once (a field and a message said twice are one), in their order. */
export const distinctIssues = (errors: ReadonlyArray<FieldIssue>): ReadonlyArray<FieldIssue> => {
  const seen = new Set<string>()
  return errors.filter((e) => {
    const key = `${e.message}\u0000${e.path.join("\u0000")}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * One sentence per field: `direction must be "up" or "down"; reason must not be blank`; the body as a whole is
 * "the body". Past MAX_DESCRIBED, how many more there are.
 */
export const describeFieldErrors = (errors: ReadonlyArray<FieldIssue>, withoutSlot = true): string =>
  errors
    .slice(0, errors.length > MAX_DESCRIBED ? MAX_DESCRIBED - 1 : MAX_DESCRIBED)
    .map((e) => {
      const name =
        withoutSlot && e.path.length === 1
          ? (SLOT_NAMES[String(e.path[0])] ?? "the request")
          : fieldName(withoutSlot ? e.path.slice(1) : e.path)
      return `${name} ${e.message}`
    })
    .concat(
      errors.length > MAX_DESCRIBED
        ? [
            `and ${errors.length - (MAX_DESCRIBED - 1)} more (${errors.length > MAX_LISTED_ISSUES ? `errors lists the first ${MAX_LISTED_ISSUES}` : "listed in errors"})`
          ]
        : []
    )
    .join("; ")

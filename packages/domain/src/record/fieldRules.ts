/**
 * Rules between the fields of one object, such as "a reason goes only with a down vote". A schema
 * checks an object's own rules only once each of its fields has decoded, so a request with a wrong
 * field besides would be told of that field alone, fix it, and only then hear of the rule. A rule
 * made here is also kept on the schema, as an annotation: a request's validation (the contract's
 * fieldErrors) applies it to whatever object was sent, and names every wrong thing at once.
 */
import { Schema, SchemaAST } from "effect"

/** What broke a rule: the field it concerns, and the rest of a sentence that starts with its name. */
export interface RuleBreach {
  readonly path: ReadonlyArray<string>
  readonly message: string
}

/** A rule over an object's fields; it must cope with fields of any type (the object may not have decoded). */
export type FieldRule = (fields: { readonly [key: string]: unknown }) => RuleBreach | undefined

const FIELD_RULES = "@productdir/domain/fieldRules"

/** `schema` checked with `rules`, which are kept on it for `fieldRulesOf`. */
export const withFieldRules =
  (...rules: ReadonlyArray<FieldRule>) =>
  <S extends Schema.Top & { readonly Type: { readonly [key: string]: unknown } }>(schema: S) =>
    schema
      .check(
        Schema.makeFilter((fields: S["Type"]) => {
          for (const rule of rules) {
            const breach = rule(fields)
            if (breach !== undefined) return { path: breach.path, issue: breach.message }
          }
          return undefined
        })
      )
      .annotate({ [FIELD_RULES]: rules })

/** The rules `withFieldRules` put on `ast` (or on the members of a union of objects). */
export const fieldRulesOf = (ast: SchemaAST.AST): ReadonlyArray<FieldRule> => {
  const own = SchemaAST.resolve(ast)?.[FIELD_RULES]
  if (Array.isArray(own)) return own as ReadonlyArray<FieldRule>
  return ast._tag === "Union" ? ast.types.flatMap(fieldRulesOf) : []
}

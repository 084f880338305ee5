export * from "./Api.ts"
export * from "./Authentication.ts"
export * from "./PublisherAuthentication.ts"
// What was wrong with a request, in plain words: the domain's, the same for every door (HTTP, MCP, A2A, the import).
export {
  describeFieldErrors,
  type FieldIssue,
  fieldErrors,
  fieldName,
  fieldNamesOf,
  GIVEN_TWICE,
  distinctIssues,
  MAX_LISTED_ISSUES,
  UNKNOWN_FIELD
} from "@productdir/domain"
export * from "./McpTools.ts"
export * from "./openapi.ts"
export * from "./params.ts"
export * from "./problems.ts"
export * from "./RequestValidation.ts"
export * from "./ServiceIndex.ts"
export * from "./version.ts"
export * from "./DirectoryCard.ts"

/**
 * A route's template as the request metrics and traces name it (OpenTelemetry's `http.route`):
 * `/products/:id` → `/products/{id}`. A module of its own, with no imports, so that the read cache's
 * keys (packages/read-cache/src/readKeys.ts) can name the routes they answer without the route tree's imports.
 */
export const templateOf = (path: string): string => path.replace(/:([A-Za-z_]\w*)/gu, "{$1}")

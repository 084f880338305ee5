/**
 * The tracking URL of `trust_signals.website` (docs/decisions.md, "Record and slugs"). Plain string work
 * rather than `URL`, so the stored home page comes back byte for byte (no
 * host or path normalisation) and the domain needs no runtime globals.
 */

export interface Utm {
  readonly source: string
  readonly medium: string
  readonly campaign: string
}

export const defaultUtm: Utm = { source: "productdir", medium: "agent", campaign: "directory" }

const isUtmParam = (pair: string): boolean => /^utm_(source|medium|campaign)(=|$)/.test(pair)

const split = (url: string) => {
  const hashAt = url.indexOf("#")
  const fragment = hashAt === -1 ? "" : url.slice(hashAt)
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt)
  const queryAt = beforeHash.indexOf("?")
  const base = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt)
  const query = queryAt === -1 ? "" : beforeHash.slice(queryAt + 1)
  const params = query.split("&").filter((pair) => pair.length > 0 && !isUtmParam(pair))
  return { base, params, fragment }
}

const join = (base: string, params: ReadonlyArray<string>, fragment: string): string =>
  `${base}${params.length > 0 ? `?${params.join("&")}` : ""}${fragment}`

/** Appends utm_source/medium/campaign; keeps any other query and the fragment, replaces existing utm_* values. */
export const withTracking = (website: string, utm: Utm): string => {
  const { base, fragment, params } = split(website)
  return join(
    base,
    [
      ...params,
      `utm_source=${encodeURIComponent(utm.source)}`,
      `utm_medium=${encodeURIComponent(utm.medium)}`,
      `utm_campaign=${encodeURIComponent(utm.campaign)}`
    ],
    fragment
  )
}

/** The home page behind a tracking URL: what an import stores. */
export const withoutTracking = (website: string): string => {
  const { base, fragment, params } = split(website)
  return join(base, params, fragment)
}

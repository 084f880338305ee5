/**
 * A request's path as this API reads it: every character of it a path character (RFC 3986), `;` too.
 * The router (Effect's port of find-my-way) cuts a path at its first `;` or `#` and reads the rest as a
 * query, for servers that once wrote session ids as `/page;jsessionid=…`: `/entities/a;x/problems` would be
 * answered as `/entities/a`, and `/products;x?q=…` as the whole catalog, 200 each. A cache or a proxy rule
 * keyed on the whole URL would then hold or allow another resource than the one named. Escaped, they reach
 * the router as the characters they are: in a parameter they are part of its value (and refused by its
 * rules), elsewhere no route matches them (404).
 */

/** `url` with each `;` and `#` before its query escaped; `url` itself when it has none (nearly always). */
export const literalPath = (url: string): string => {
  const mark = url.indexOf("?")
  const path = mark === -1 ? url : url.slice(0, mark)
  if (!path.includes(";") && !path.includes("#")) return url
  return path.replaceAll(";", "%3B").replaceAll("#", "%23") + (mark === -1 ? "" : url.slice(mark))
}

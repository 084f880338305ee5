/**
 * A request's constraints against a product's pricing (reading.ts reads them): prices are the records'
 * own text (`Free`, `$12/mo`, `€9/user/mo`, `Contact sales`), read for their amount and whether they recur.
 * Amounts in another currency than the request's are compared as written: the directory keeps no exchange
 * rates, and says so (docs/search.md).
 */
import type { Constraint } from "./reading.ts"
import type { ProductDescription } from "./ProductDescription.ts"

const FREE = /^\s*(?:free|\$?€?£?\s*0(?:[.,]0+)?)\b/iu
const AMOUNT = /(\d[\d,]*(?:\.\d+)?)/u
const RECURS = /\/\s*(?:mo|month|yr|year|user|seat|wk|week)|per (?:month|year|user|seat)|monthly|annual|yearly/iu
/** Pricing models that ask for no subscription: the product is free, paid once, or paid as used. */
const NO_SUBSCRIPTION_MODELS = /^(?:free|open[- ]source|one[- ]time|lifetime|usage[- ]based|pay[- ]as[- ]you[- ]go|perpetual)/iu
const FREE_MODELS = /^(?:free|open[- ]source|freemium)/iu
/** Below this monthly amount (in any currency) a price reads as low. */
const LOW_PRICE = 20

const amountOf = (price: string): number | undefined => {
  if (FREE.test(price)) return 0
  const m = AMOUNT.exec(price)
  return m === null ? undefined : Number(m[1]!.replace(/,/gu, ""))
}

const hasFreePlan = (d: ProductDescription) => FREE_MODELS.test(d.pricingModel) || d.prices.some((p) => FREE.test(p))

/** The lowest price a product lists, or undefined when none has an amount (`Contact sales`). */
export const lowestPrice = (d: ProductDescription): number | undefined => {
  const amounts = d.prices.map(amountOf).filter((a): a is number => a !== undefined)
  return amounts.length === 0 ? (FREE_MODELS.test(d.pricingModel) ? 0 : undefined) : Math.min(...amounts)
}

/** Whether a product meets a constraint. */
export const meets = (constraint: Constraint, d: ProductDescription): boolean => {
  switch (constraint.kind) {
    case "free_plan":
      return hasFreePlan(d)
    case "max_price": {
      const lowest = lowestPrice(d)
      return lowest !== undefined && lowest <= constraint.amount
    }
    case "no_subscription":
      return (
        NO_SUBSCRIPTION_MODELS.test(d.pricingModel) || d.prices.some((p) => FREE.test(p) || (amountOf(p) !== undefined && !RECURS.test(p)))
      )
    case "low_price": {
      const lowest = lowestPrice(d)
      return lowest !== undefined && lowest < LOW_PRICE
    }
  }
}

const SYMBOL: Record<string, string> = { USD: "$", EUR: "€", GBP: "£" }

/** A constraint as an answer names it. */
export const constraintLabel = (constraint: Constraint): string => {
  switch (constraint.kind) {
    case "free_plan":
      return "a free plan"
    case "max_price":
      return `a price of at most ${constraint.currency === undefined ? "" : SYMBOL[constraint.currency]}${constraint.amount}`
    case "no_subscription":
      return "no subscription"
    case "low_price":
      return "a low price"
  }
}

/** Whether an unmet constraint rules a product out of a strong match (a low price only ranks). */
export const isHard = (constraint: Constraint): boolean => constraint.kind !== "low_price"

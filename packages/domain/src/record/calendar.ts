/**
 * Whether an ISO 8601 timestamp's parts name a moment that exists: a month of 1-12, a day its month
 * has (February 29 in leap years only), hours 0-23, minutes and seconds 0-59, an offset's hours 0-23.
 * A pattern alone lets `2026-02-30` through, and `new Date` rolls it over to March 2 without a word:
 * an import would store a date nobody wrote, a filter would answer for a day nobody asked about.
 */
const PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))?)?$/iu

const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/**
 * True when `text` is shaped as a date, or a date and time, and one of its parts is out of range. Text of
 * another shape is not judged here: its pattern's check names it.
 */
export const isOffCalendar = (text: string): boolean => {
  const parts = PARTS.exec(text)
  if (parts === null) return false
  // A part left out (the time, the seconds, the offset) is in range.
  const n = (i: number): number => Number(parts[i] ?? 0)
  const [year, month, day] = [n(1), n(2), n(3)]
  return !(
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    n(4) <= 23 &&
    n(5) <= 59 &&
    n(6) <= 59 &&
    n(7) <= 23 &&
    n(8) <= 59
  )
}

/** What a timestamp that is not on the calendar is told. */
export const NOT_ON_CALENDAR = "is not a moment on the calendar (a month has 28 to 31 days, an hour 60 minutes): check the date"

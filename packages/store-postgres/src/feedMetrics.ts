/**
 * The change feed in the metrics: when its last poll that worked began (unix seconds). Whatever
 * committed before that moment, this process has been told of; a process that cannot reach its
 * database sees this stop moving. The API shows the age as `productdir_change_feed_lag_seconds`
 * (apps/api, observability/storeMetrics.ts); 250 ms and a query is the normal.
 */
import { Metric } from "effect"

export const ChangeFeedPolledAt = Metric.gauge("productdir_change_feed_last_poll_timestamp_seconds", {
  description: "When the change feed's last successful poll began (unix seconds): every change committed before it has been seen."
})

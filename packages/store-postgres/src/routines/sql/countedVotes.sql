-- The rule of trust (packages/domain/src/ports/VoteLedger.ts), once: every count of the ledger reads this
-- view, the reconciliation's and the revocation's recounts alike. A vote counts when it is counted
-- (not held, not discounted: packages/domain/src/trust/voteCounting.ts) and its agent is in good standing; it counts for its
-- weight (packages/domain/src/trust/judgement.ts).

-- routine: counted_votes
DROP VIEW IF EXISTS counted_votes;

CREATE VIEW counted_votes AS SELECT product_id, voter, direction, created_at, updated_at, weight FROM votes WHERE revoked_at IS NULL AND counting = 'counted';

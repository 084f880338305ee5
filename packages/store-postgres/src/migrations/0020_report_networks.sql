-- Migration 0020_report_networks, frozen: the SQL it ran when it shipped, whatever the code says today.
-- A report's words are quoted within its voter's and its network's budgets of report text (packages/domain/src/
-- Problem.ts, REPORT_TEXT_BUDGET), drawn across products in a day: each report keeps its vote's network, and both
-- are found by reporter and time. Reports written before take their votes' networks.

ALTER TABLE problem_reports ADD COLUMN network text;

UPDATE problem_reports r SET network = v.network
  FROM votes v WHERE v.product_id = r.product_id AND v.voter = r.voter AND v.network IS NOT NULL;

CREATE INDEX problem_reports_by_reporter ON problem_reports (voter, reported_at);

CREATE INDEX problem_reports_by_network ON problem_reports (network, reported_at) WHERE network IS NOT NULL;

-- Migration 0016_agents_by_key, frozen: the SQL it ran when it shipped, whatever the code says today.
-- A signed agent is its key, whatever directory URL named it (AgentRegistry.findSigned): the first vote
-- of a signature looks the key up alone, which the unique (key_directory, key_id) index does not serve.

CREATE INDEX agents_by_key_id ON agents (key_id) WHERE key_id IS NOT NULL;

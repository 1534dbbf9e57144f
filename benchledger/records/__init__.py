"""The records core: strict JSON reading, JSON pointers, the hash-chained ledger, the store
(sealing and verification), the record schemas, the consistency checks and the validation
cache. The collector and the site generator both stand on it; it imports neither."""

"""Scale-out: one plan's cases dispatched over a Ray cluster (`benchledger collect PLAN --ray
ADDRESS`). The driver stays the only writer of the run folder, the store and the ledger.

- `ray_runner`: the driver (a `Runner` whose `run_cases` submits one Ray task per case, with
  Ray's retries off and benchledger's own: system failures only, numbered attempts, timeouts).
- `worker`: what one Ray task runs on its node: where it runs, the GPU check, the case.
- `host`: the facts of the machine a case ran on, measured there (hostname, CPU, kernel, GPUs).
- `journal`: the durable dispatch journal keyed by (plan sha256, case, attempt).
- `resources`: what a case asks Ray for, and whether a live node can give it.

Ray is an optional extra (`pip install 'benchledger[ray]'`); nothing here imports it at import
time, so the rest of the collector runs without it."""

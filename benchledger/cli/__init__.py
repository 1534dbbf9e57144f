"""The `benchledger` command line: `main` parses the verb and is the one place that turns a
BenchledgerError into a message and an exit code; one module per verb under `commands/`."""

"""benchledger: benchmark runs as sealed records, published as auditable articles."""

__version__ = "0.1.0"

"""The event classes, one module per family. Import them through
:mod:`bkn_common.contracts.events`, which registers every type."""

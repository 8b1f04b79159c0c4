"""Pure domain of ontology-query: the ontology model, its in-memory store, and the queries.

No I/O here: adapters feed the :class:`OntologyStore` from events, entry points call the
query functions and render :class:`DomainError` with its ``code`` and ``details``.
"""

"""ontology-query: a network's schema, object instances and subgraphs."""

"""What travels between services and to clients: the events, the error envelope and its messages,
topics and record keys, the OpenAPI/AsyncAPI documents, the JSON codec."""

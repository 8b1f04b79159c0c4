"""trace-recorder: the trace core.

Conversations, interactions, operations, receipts, evidence and spans.
"""

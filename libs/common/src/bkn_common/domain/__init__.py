"""Rules every service shares about the network's content: who may see what (access), the
capability lifecycle gate and its view, knowledge-base links and sources, the TOON encoding."""

"""clctl: the operator CLI of the Context Loader mesh."""

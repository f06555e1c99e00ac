"""Built-in providers, and what the host and `wardian providers` need to know about any
provider's executable. Built-ins register through the `wardian` entry-point group like
any third-party provider."""

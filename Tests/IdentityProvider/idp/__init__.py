"""authdeck's bundled local OpenID provider (django-oauth-toolkit), for tests and the demo."""

"""The documents adapter: the I/O side of results sheets and certificates (RULES DOC-1..DOC-3).

`render` turns the domain's dataclasses (domain.documents.model) into PDFs with Jinja2 + WeasyPrint
and the templates and fonts in templates/; `pdf` embeds the signed data and the seal into a PDF and
reads them back (pypdf). The pure parts (data, signing, checks) stay in domain/documents/, which
imports no Jinja.
"""

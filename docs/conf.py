# Sphinx configuration of clgather's documentation site (scripts/docs.sh).
# The source directory is the repository root, so README.md and docs/*.md
# link to each other with the same relative paths GitHub follows; only the
# pages listed in include_patterns are read. The API reference comes from
# Doxygen's XML of include/clgather/*.h through breathe.
import os

project = "clgather"
author = "clgather's authors"
root_doc = "docs/index"
extensions = ["myst_parser", "breathe", "sphinx.ext.autodoc"]
# The Python package (docs/api/python.rst), imported from the source tree
# against the library scripts/docs.sh names in CLGATHER_LIBRARY.
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
autodoc_default_options = {"undoc-members": False}
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
include_patterns = ["README.md", "docs/*.md", "docs/*.rst", "docs/api/*.rst",
                    "docs/img/**"]
exclude_patterns = []
myst_heading_anchors = 4
myst_enable_extensions = []
breathe_projects = {"clgather": os.environ.get("CLGATHER_DOXYGEN_XML",
                                               "build-docs/doxygen/xml")}
breathe_default_project = "clgather"
breathe_domain_by_extension = {"h": "c"}
html_theme = "sphinx_rtd_theme"
html_title = "clgather"
html_show_sourcelink = False
nitpicky = False

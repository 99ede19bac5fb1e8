"""Runs one of the seed's Python snippets (seed/*.py) unchanged, on a machine set up as its team's would be: the
sandbox's CA trusted as if installed in the system's trust store (uamqp trusts certifi's bundle when not told
otherwise), and stripe-python pointed at the sandbox's Stripe. The snippet's own code is not touched.

  run_seed.py <snippet.py>                       runs the snippet (a consumer) as __main__
  run_seed.py <snippet.py> resubmit_dead_letter  calls the snippet's resubmit_dead_letter(connection string, queue),
                                                 defined as the seed writes it, without its consumer loop
"""
import ast
import os
import runpy
import sys

import certifi
import stripe

ca_file = os.environ["SERVICEBUS_CA_FILE"]
certifi.where = lambda: ca_file
stripe.api_base = os.environ["STRIPE_API_BASE"]

snippet = sys.argv[1]
if len(sys.argv) > 2:
    function = sys.argv[2]
    with open(snippet, encoding="utf-8") as source:
        tree = ast.parse(source.read(), snippet)
    # The snippet's imports and the one function: its module-level consumer loop stays out.
    kept = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
            or (isinstance(node, ast.FunctionDef) and node.name == function)]
    scope = {"__name__": "seed_operator"}
    exec(compile(ast.Module(body=kept, type_ignores=[]), snippet, "exec"), scope)  # noqa: S102 - the seed's own code
    scope[function](os.environ["AZURE_SERVICEBUS_CONNECTION_STRING"], os.environ["AZURE_SERVICEBUS_QUEUE_NAME"])
else:
    runpy.run_path(snippet, run_name="__main__")

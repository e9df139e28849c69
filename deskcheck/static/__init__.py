"""deskcheck.static: the model of production code, read from source without importing it.

The layer below :mod:`deskcheck.drift_guard` and :mod:`deskcheck.uniformity`: a parse cache by
content hash (hollow parsing: a body is parsed when first reached), imports, re-exports and the
MRO of classes across modules, class members, the ``self.X`` touches of one function with the
branch conditions each sits under, call-site constants (a call's literal arguments bound to
the callee's parameters, defaults, literal locals), deciding branch conditions from known
constants (with the reason when undecided), reachability from driven methods with those
constants flowing into each ``self.m(...)`` callee, decorator wrappers, and the production
surface that follows ``self.m()``, properties and ``super()``; def-use and control dependence
of one function (``flow_facts``), every field write of a class (``field_writes``) and call
resolution through the MRO, components and factories (``CallResolver``).
It imports no other part of deskcheck. Public names only; every ``_module`` is private.
"""

from deskcheck._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    **dict.fromkeys(("CALL", "DELETE", "ELEMENT", "GUARDED", "READ", "RMW", "WRITE", "Access", "Cond",
                     "ContextRead", "FunctionFacts", "first_param", "function_facts"),
                    "_collect"),
    **dict.fromkeys(("DEAD", "LIVE", "UNKNOWN", "Decision", "decide", "explain"), "_conditions"),
    **dict.fromkeys(("CallArgs", "Env", "FunctionConstants", "Param", "Returns", "Something",
                     "Unknown", "call_args", "function_constants", "is_known", "literal"),
                    "_constants"),
    **dict.fromkeys(("bind", "merge", "signature_problems", "unbound"), "_binding"),
    **dict.fromkeys(("Use", "roles_for", "walk"), "_reach"),
    **dict.fromkeys(("CallResolver", "Fn", "argument_setting", "is_abstract",
                     "parameter_annotation"), "_calls"),
    **dict.fromkeys(("Def", "FlowFacts", "Guard", "clear_flow_cache", "flow_facts",
                     "holding_guards", "reraising"), "_dataflow"),
    **dict.fromkeys(("FieldWrite", "clear_fields_cache", "field_writes", "method_functions",
                     "writes_through_others"),
                    "_fields"),
    **dict.fromkeys(("ClassSource", "Member", "class_members"), "_members"),
    **dict.fromkeys(("subnodes",), "_nodes"),
    **dict.fromkeys(("ClassModel", "build_runtime", "build_static", "default_roots",
                     "import_class", "installed_root", "split_spec"), "_model"),
    **dict.fromkeys(("ALL", "ParsedFile", "Sources", "clear_cache", "decorators", "note_read",
                     "read_as", "record_reads"), "_sources"),
    **dict.fromkeys(("unread_change",), "_unread"),
    **dict.fromkeys(("Binding", "External", "StaticIndex", "class_key", "nested_class",
                     "probe_again", "probe_module"),
                    "_static"),
    **dict.fromkeys(("NameUse", "ReachedMethod", "Site", "Surface", "build_model", "surface",
                     "trace"), "_surface"),
    **dict.fromkeys(("source_root", "wrapper_functions"), "_wrappers"),
}, globals())

"""How a parameter value is written on warpsim's command line (`--set key=value`)."""

from __future__ import annotations


def set_argument(param: str, value) -> str:
    if isinstance(value, bool):
        return f"{param}={'true' if value else 'false'}"
    if isinstance(value, (list, tuple)):                 # an int list, as TOML writes it
        return f"{param}=[{', '.join(str(v) for v in value)}]"
    return f"{param}={value}"

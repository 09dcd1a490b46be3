"""Language-model adapters: Anthropic, OpenAI-compatible gateways, Ollama, or none.

Import `cortex_tui.llm.factory.make_llm` to build the configured client; the backends
import their HTTP libraries only when chosen.
"""

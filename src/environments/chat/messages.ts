// The assistant's parsed turn (contract.ts) as the chat message a template reads: OpenAI's chat shape
// (`tool_calls: [{id, type: 'function', function: {name, arguments}}]`) plus vLLM's `reasoning_content`,
// the field Qwen3's template reads for a turn's reasoning. Arguments stay an object (transformers and
// vLLM hand templates a dict; the template writes it with `tojson`).
import type { ChatMessage } from '../../tokenizers/chat-template.ts';
import type { AssistantMessage } from './contract.ts';

/** The chat message of an assistant turn, as a client that re-renders the conversation would send it. */
export function templateMessage(message: AssistantMessage): ChatMessage {
  const rendered: ChatMessage = { role: 'assistant', content: message.content };
  if (message.reasoning !== undefined) rendered.reasoning_content = message.reasoning;
  if (message.toolCalls.length > 0)
    rendered.tool_calls = message.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  return rendered;
}

// How a chat request becomes a prompt for the embedded model. The embedded model was trained on
// `[BOS] + problem prompt` with no chat template (src/tasks/format.ts), so the minimal template is:
// the text of every message, in order, joined with "\n", roles dropped; then BOS is prepended when the
// prompt is tokenized. A single user message therefore renders to exactly the training format.
// This is the one place to replace with a real template (a model's own Jinja chat_template, rendered
// with @huggingface/jinja) once a served model has one.
import type { ChatMessage } from './schemas.ts';

export function renderChat(messages: readonly ChatMessage[]): string {
  return messages.map(messageText).join('\n');
}

function messageText(message: ChatMessage): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => part.text).join('');
}

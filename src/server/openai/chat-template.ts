// How a chat request becomes a prompt for a model without a chat template (the embedded character
// model). The embedded model was trained on `[BOS] + problem prompt` with no chat template
// (src/tasks/format.ts), so the minimal template is: the text of every message, in order, joined with
// "\n", roles dropped; then BOS is prepended when the prompt is tokenized. A single user message therefore
// renders to exactly the training format. A model whose tokenizer has its own Jinja chat template is
// rendered with it instead (chat-tools.ts), tools and tool calls included; here tools, tool messages and
// tool calls are refused with a 400, since this template has no way to show them.
import { UserError } from '../../core/errors.ts';
import type { ChatRequest } from './schemas.ts';

export function renderChat(body: Pick<ChatRequest, 'messages' | 'tools'>, route: string): string {
  const tooly =
    (body.tools?.length ?? 0) > 0 ||
    body.messages.some((message) => message.role === 'tool' || (message.tool_calls?.length ?? 0) > 0);
  if (tooly)
    throw new UserError(
      `${route}: this model has no chat template (its tokenizer is the embedded character tokenizer), so it cannot be shown tools or tool calls; serve a model whose tokenizer has a chat_template (curricula serve --policy … --tokenizer DIR)`,
    );
  return body.messages.map(messageText).join('\n');
}

/** A message's text: its string, or its text parts joined; '' when absent. */
export function messageText(message: ChatRequest['messages'][number]): string {
  const content = message.content;
  if (content === undefined || content === null) return '';
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

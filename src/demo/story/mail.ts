/**
 * The demo's mail server (`switchboard demo mail`): `send_email` does not send anything, it
 * appends the message to an outbox file (one JSON line a message), so what the agent managed to
 * send is on disk for anyone to check. It is the demo's way out (an `egress` tool): once private
 * data and untrusted content are both in the session, the gateway asks a person before a call
 * reaches it (the lethal trifecta).
 *
 * @module
 */
import { appendFileSync, readFileSync } from 'node:fs';
import type { McpServer } from '../../server/mcpServer.js';
import { storyServer, type StoryServerOptions } from './storyServer.js';

/** Options of {@link createMailDemoServer}. */
export interface MailDemoOptions extends StoryServerOptions {
  /** The outbox file: one JSON line (`{ at, to, subject, body }`) per message sent. */
  readonly outbox: string;
}

/** Builds the demo mail server. */
export function createMailDemoServer(options: MailDemoOptions): McpServer {
  const server = storyServer('mail', 'Sends email (in the demo: to an outbox file).', options);
  server.tool(
    'send_email',
    {
      title: 'Send an email',
      description: 'Sends an email message.',
      inputSchema: {
        type: 'object',
        properties: {
          to: { type: 'string', description: 'Recipient address' },
          subject: { type: 'string' },
          body: { type: 'string' },
        },
        required: ['to', 'subject', 'body'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    (args) => {
      const message = { at: new Date().toISOString(), to: String(args['to']), subject: String(args['subject']), body: String(args['body']) };
      appendFileSync(options.outbox, `${JSON.stringify(message)}\n`, { mode: 0o600 });
      return `Sent to ${message.to}: ${message.subject}`;
    },
  );
  server.tool(
    'list_outbox',
    {
      title: 'List sent messages',
      description: 'Lists the messages sent so far (recipient and subject).',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => {
      let text = '';
      try {
        text = readFileSync(options.outbox, 'utf8');
      } catch {
        return 'The outbox is empty.';
      }
      const lines = text.split('\n').filter((line) => line !== '');
      if (lines.length === 0) return 'The outbox is empty.';
      return lines.map((line) => {
        const m = JSON.parse(line) as { at: string; to: string; subject: string };
        return `${m.at} to ${m.to}: ${m.subject}`;
      }).join('\n');
    },
  );
  return server;
}

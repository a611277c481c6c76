// @ts-check
/**
 * Inspector: pick a server, browse the tools, resources, prompts and resource templates the
 * gateway exposes of it, call a tool from a form generated from its input schema, read a
 * resource, get a prompt, and read the results. Every call goes through the gateway's chain
 * (policy, consent, pins, audit) as principal `console:admin`. A server's question during a
 * tool call (`elicitation/create`, vetted by the chain) shows as a form generated from its
 * `requestedSchema`, answered with Accept, Decline or Cancel.
 *
 * @module
 */
import { api, subscribe } from '../lib/api.js';
import { html, useEffect, useState } from '../lib/html.js';
import { href } from '../lib/route.js';
import { useApi } from '../lib/useApi.js';
import { Badge } from '../components/badge.js';
import { ContentItemView, ResourceView, ToolResult } from '../components/content.js';
import { JsonView } from '../components/json.js';
import { SchemaFields, collectArguments, initialValues } from '../components/schemaForm.js';
import { Notice, Reveal, errorText } from '../components/text.js';

/** @typedef {{ name: string, title?: string, description?: string, inputSchema?: import('../components/schemaForm.js').ObjectSchema, outputSchema?: unknown, annotations?: unknown }} Tool */
/** @typedef {{ uri: string, name?: string, description?: string, mimeType?: string }} Resource */
/** @typedef {{ name: string, description?: string, arguments?: { name: string, description?: string, required?: boolean }[] }} Prompt */
/** @typedef {{ uriTemplate: string, name?: string, description?: string }} Template */
/** @typedef {{ server: string, state: string, tools: Tool[], resources: Resource[], prompts: Prompt[], templates: Template[] }} Catalog */
/** @typedef {{ result?: any, error?: { code: string, message: string } }} Outcome */
/** @typedef {{ call: string, question: string, server: string, expiresAt: string, params: { message?: string, requestedSchema?: import('../components/schemaForm.js').ObjectSchema } }} Question */

const TABS = /** @type {const} */ (['tools', 'resources', 'prompts', 'templates']);

/** The Inspector page; `rest` is the server id from `#/inspector/<server>`. */
export function Inspector(/** @type {{ rest: string }} */ { rest }) {
  const servers = /** @type {import('../lib/useApi.js').Loaded<{ servers: { id: string, state: string }[] }>} */ (useApi('overview', ['servers']));
  const catalog = /** @type {import('../lib/useApi.js').Loaded<Catalog>} */ (useApi(rest === '' ? null : `inspector/${encodeURIComponent(rest)}`, ['tools', 'resources', 'prompts', 'templates', 'servers']));
  const [tab, setTab] = useState(/** @type {typeof TABS[number]} */ ('tools'));
  return html`<h1 id="page-title">Inspector${rest !== '' ? html`: <${Reveal} text=${rest} />` : null}</h1>
    <p class="lede">Calls from here go through the gateway's policy, consent, pins and audit, as <code>console:admin</code>.</p>
    <div class="split">
      <nav aria-label="Servers">
        <h2>Servers</h2>
        ${servers.error !== '' ? html`<${Notice} kind="error">${servers.error}<//>` : null}
        <ul class="list-buttons">
          ${(servers.data?.servers ?? []).map(
            (s) => html`<li><a href=${href('inspector', s.id)} aria-current=${s.id === rest ? 'page' : undefined}><${Reveal} text=${s.id} /></a> <${Badge} value=${s.state} /></li>`,
          )}
        </ul>
      </nav>
      <div>
        ${rest === '' ? html`<p>Pick a server.</p>` : null}
        ${catalog.error !== '' ? html`<${Notice} kind="error">${catalog.error}<//>` : null}
        ${catalog.data !== undefined
          ? html`<div role="tablist" aria-label="What to browse" class="tabs">
                ${TABS.map(
                  (t) => html`<button type="button" role="tab" id=${`tab-${t}`} aria-selected=${tab === t ? 'true' : 'false'} aria-controls=${`panel-${t}`}
                    class=${tab === t ? '' : 'secondary'} onClick=${() => setTab(t)}>${t[0]?.toUpperCase()}${t.slice(1)} (${catalog.data?.[t].length ?? 0})</button>`,
                )}
              </div>
              <div role="tabpanel" id=${`panel-${tab}`} aria-labelledby=${`tab-${tab}`}>
                ${tab === 'tools' ? html`<${ToolsPanel} tools=${catalog.data.tools} key=${rest} />` : null}
                ${tab === 'resources' ? html`<${ResourcesPanel} resources=${catalog.data.resources} />` : null}
                ${tab === 'prompts' ? html`<${PromptsPanel} prompts=${catalog.data.prompts} />` : null}
                ${tab === 'templates' ? html`<${TemplatesPanel} templates=${catalog.data.templates} />` : null}
              </div>`
          : null}
      </div>
    </div>`;
}

/** A fresh id for one tool call (its questions name it); `getRandomValues` works outside secure contexts too. */
function callId() {
  const bytes = window.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Runs a POST and keeps its outcome, a pending flag and a local error. */
function useCall() {
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));
  const [pending, setPending] = useState(false);
  const [error, setError] = useState('');
  const run = async (/** @type {string} */ path, /** @type {unknown} */ body) => {
    setPending(true);
    setOutcome(null);
    setError('');
    try {
      setOutcome(await api(path, { body }));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setPending(false);
    }
  };
  return { outcome, pending, error, setError, run };
}

/** Shows a call's pending state, its chain error, or nothing (the caller renders the result). */
function CallStatus(/** @type {{ pending: boolean, error: string, outcome: Outcome | null }} */ { pending, error, outcome }) {
  return html`${pending ? html`<p role="status">Waiting for the answer (a call that needs consent waits for it on the Consent page)…</p>` : null}
    ${error !== '' ? html`<${Notice} kind="error"><${Reveal} text=${error} /><//>` : null}
    ${outcome?.error !== undefined ? html`<${Notice} kind="error"><span data-testid="call-error">${outcome.error.code}: <${Reveal} text=${outcome.error.message} /></span><//>` : null}`;
}

/** The tools of the server, one selected, with its generated form. */
function ToolsPanel(/** @type {{ tools: Tool[] }} */ { tools }) {
  const [selected, setSelected] = useState(tools[0]?.name ?? '');
  const tool = tools.find((t) => t.name === selected);
  const [values, setValues] = useState(/** @type {Record<string, string>} */ ({}));
  const call = useCall();
  const [current, setCurrent] = useState('');
  const [questions, setQuestions] = useState(/** @type {Question[]} */ ([]));
  useEffect(() => setValues(initialValues(tool?.inputSchema)), [selected]);
  useEffect(
    () =>
      subscribe({
        'inspector-question': (/** @type {Question} */ q) => setQuestions((qs) => (qs.some((x) => x.question === q.question) ? qs : [...qs, q])),
        'inspector-question-settled': (/** @type {{ question: string }} */ d) => setQuestions((qs) => qs.filter((x) => x.question !== d.question)),
      }),
    [],
  );
  /** @param {Event} event */
  const submit = (event) => {
    event.preventDefault();
    if (tool === undefined) return;
    let args;
    try {
      args = collectArguments(tool.inputSchema, values);
    } catch (e) {
      call.setError(errorText(e));
      return;
    }
    const id = callId();
    setCurrent(id);
    void call.run('inspector/call', { tool: tool.name, arguments: args, call: id });
  };
  if (tools.length === 0) return html`<p>This server exposes no tools.</p>`;
  return html`<div class="split">
    <ul class="list-buttons" aria-label="Tools">
      ${tools.map((t) => html`<li><button type="button" aria-pressed=${t.name === selected ? 'true' : 'false'} onClick=${() => setSelected(t.name)}><${Reveal} text=${t.name} /></button></li>`)}
    </ul>
    ${tool !== undefined
      ? html`<form class="card" onSubmit=${submit} aria-labelledby="tool-title" data-testid="tool-form">
          <h2 id="tool-title"><code><${Reveal} text=${tool.name} /></code></h2>
          ${tool.description !== undefined ? html`<p class="description" data-testid="tool-description"><${Reveal} text=${tool.description} /></p>` : null}
          <${SchemaFields} schema=${tool.inputSchema} values=${values} onChange=${setValues} idPrefix=${`arg-${tool.name}`} />
          <div class="actions"><button type="submit" disabled=${call.pending}>Call tool</button></div>
          <details><summary>Input schema</summary><${JsonView} value=${tool.inputSchema} label="Input schema" /></details>
          ${questions.filter((q) => q.call === current).map((q) => html`<${QuestionCard} question=${q} key=${q.question} />`)}
          <${CallStatus} ...${call} />
          ${call.outcome?.result !== undefined ? html`<${ToolResult} result=${call.outcome.result} />` : null}
        </form>`
      : null}
  </div>`;
}

/** A server's question during this page's call: its message, a form from its `requestedSchema`, and the three answers. */
function QuestionCard(/** @type {{ question: Question }} */ { question }) {
  const schema = question.params.requestedSchema;
  const [values, setValues] = useState(() => initialValues(schema));
  const [error, setError] = useState('');
  const [sent, setSent] = useState(false);
  const answer = async (/** @type {'accept' | 'decline' | 'cancel'} */ action) => {
    setError('');
    /** @type {Record<string, unknown>} */
    const body = { call: question.call, question: question.question, action };
    try {
      if (action === 'accept') body['content'] = collectArguments(schema, values);
      setSent(true);
      await api('inspector/answer', { body });
    } catch (e) {
      setSent(false);
      setError(errorText(e));
    }
  };
  // Inside the tool's form (no nested form): Enter does nothing while the call waits (its submit button is disabled).
  return html`<section class="card" role="group" aria-label=${`Question from ${question.server}`} data-testid="inspector-question">
    <h3>Server <code><${Reveal} text=${question.server} /></code> asks</h3>
    ${question.params.message !== undefined ? html`<p><${Reveal} text=${question.params.message} /></p>` : null}
    <${SchemaFields} schema=${schema} values=${values} onChange=${setValues} idPrefix=${`q-${question.question}`} />
    <div class="actions">
      <button type="button" disabled=${sent} onClick=${() => answer('accept')}>Accept</button>
      <button type="button" class="secondary" disabled=${sent} onClick=${() => answer('decline')}>Decline</button>
      <button type="button" class="secondary" disabled=${sent} onClick=${() => answer('cancel')}>Cancel</button>
    </div>
    ${error !== '' ? html`<${Notice} kind="error"><${Reveal} text=${error} /><//>` : null}
  </section>`;
}

/** The resources, each with a Read button. */
function ResourcesPanel(/** @type {{ resources: Resource[] }} */ { resources }) {
  const call = useCall();
  if (resources.length === 0) return html`<p>This server exposes no resources.</p>`;
  return html`<ul class="stack">
      ${resources.map(
        (r) => html`<li><code><${Reveal} text=${r.uri} /></code> <${Reveal} text=${r.name} />
          <button type="button" class="secondary" onClick=${() => call.run('inspector/read', { uri: r.uri })} aria-label=${`Read ${r.uri}`}>Read</button></li>`,
      )}
    </ul>
    <${CallStatus} ...${call} />
    ${(call.outcome?.result?.contents ?? []).map((/** @type {import('../components/content.js').ResourceContents} */ c) => html`<${ResourceView} contents=${c} />`)}`;
}

/** The prompts, one selected, with a field per argument. */
function PromptsPanel(/** @type {{ prompts: Prompt[] }} */ { prompts }) {
  const [selected, setSelected] = useState(prompts[0]?.name ?? '');
  const prompt = prompts.find((p) => p.name === selected);
  const [values, setValues] = useState(/** @type {Record<string, string>} */ ({}));
  const call = useCall();
  if (prompts.length === 0) return html`<p>This server exposes no prompts.</p>`;
  /** @param {Event} event */
  const submit = (event) => {
    event.preventDefault();
    const args = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
    void call.run('inspector/prompt', { name: selected, arguments: args });
  };
  return html`<div class="split">
    <ul class="list-buttons" aria-label="Prompts">
      ${prompts.map((p) => html`<li><button type="button" aria-pressed=${p.name === selected ? 'true' : 'false'} onClick=${() => (setSelected(p.name), setValues({}))}><${Reveal} text=${p.name} /></button></li>`)}
    </ul>
    ${prompt !== undefined
      ? html`<form class="card" onSubmit=${submit} aria-label=${`Prompt ${prompt.name}`}>
          <h2><${Reveal} text=${prompt.name} /></h2>
          ${prompt.description !== undefined ? html`<p><${Reveal} text=${prompt.description} /></p>` : null}
          ${(prompt.arguments ?? []).map(
            (a) => html`<div class="field"><label for=${`prompt-${a.name}`}>${a.name}${a.required === true ? ' (required)' : ''}</label>
              <input id=${`prompt-${a.name}`} required=${a.required === true} value=${values[a.name] ?? ''} onInput=${(/** @type {Event} */ e) => setValues({ ...values, [a.name]: /** @type {HTMLInputElement} */ (e.currentTarget).value })} /></div>`,
          )}
          <div class="actions"><button type="submit" disabled=${call.pending}>Get prompt</button></div>
          <${CallStatus} ...${call} />
          ${(call.outcome?.result?.messages ?? []).map(
            (/** @type {{ role: string, content: import('../components/content.js').ContentItem }} */ m, /** @type {number} */ i) =>
              html`<div class="card"><${Badge} value=${m.role} /><${ContentItemView} item=${m.content} index=${i} /></div>`,
          )}
        </form>`
      : null}
  </div>`;
}

/** The resource templates. */
function TemplatesPanel(/** @type {{ templates: Template[] }} */ { templates }) {
  if (templates.length === 0) return html`<p>This server exposes no resource templates.</p>`;
  return html`<ul class="stack">${templates.map((t) => html`<li><code><${Reveal} text=${t.uriTemplate} /></code> <${Reveal} text=${t.name} />${t.description !== undefined ? html` — <${Reveal} text=${t.description} />` : null}</li>`)}</ul>`;
}

/**
 * A small built-in secret detector for value taint, used by the gateway until the sanitize
 * layer's maintained detector (`findSecrets`, mapped to its values) is wired in its place. It
 * knows a few common token formats and `password|secret|token|api key` assignments; it is
 * deliberately narrow (an identifier that merely looks random is not a secret here).
 *
 * @module
 */
import type { DetectSecrets } from './valueTaint.js';

const FORMATS: readonly RegExp[] = [
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g, // Stripe
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b/g, // OpenAI, Anthropic
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g, // GitLab
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g, // Slack
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key id
  /\bAIza[A-Za-z0-9_-]{35}\b/g, // Google API key
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, // JWT
];
const ASSIGNMENT = /\b(?:password|passwd|secret|token|api[_ -]?key)\b["']?\s*[:=]\s*["']?([^\s"',;]{8,})/gi;

/** Secret values in `text` (see the module comment). */
export const basicDetectSecrets: DetectSecrets = (text) => {
  if (text.length < 8) return [];
  const out: string[] = [];
  for (const format of FORMATS) for (const m of text.matchAll(format)) out.push(m[0]);
  for (const m of text.matchAll(ASSIGNMENT)) if (m[1] !== undefined) out.push(m[1]);
  return out;
};

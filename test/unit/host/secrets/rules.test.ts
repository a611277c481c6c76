// The secret rules, one by one: each finds its token format and ignores a near miss; no
// pattern can backtrack catastrophically (checked on the pattern's structure, and by running
// each on large hostile inputs, which a super-linear pattern would not finish).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSecrets } from '../../../../src/host/secrets/findSecrets.js';
import { SECRET_RULES } from '../../../../src/host/secrets/rules.js';

/** `n` characters cycling through `alphabet` (fixture tokens are built, never written out, so no scanner mistakes this file for a leak). */
const chars = (n: number, alphabet = 'aZ3kQ9xW7mP2vB5nL8'): string => Array.from({ length: n }, (_, i) => alphabet[(i * 7) % alphabet.length]).join('');
const hex = (n: number): string => chars(n, '0123456789abcdef');

interface Case {
  readonly rule: string;
  readonly positive: string;
  /** The secret part the rule must report. */
  readonly secret: string;
  readonly nearMiss: string;
}

const awsId = `AKIA${chars(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`;
const awsSecret = chars(40, 'aB3dE6fG9hJ2kL5mN8pQ/rS+tU');
const ghp = `ghp_${chars(36)}`;
const fineGrained = `github_pat_${chars(22)}_${chars(59)}`;
const gho = `gho_${chars(36)}`;
const ghs = `ghs_${chars(36)}`;
const glpat = `glpat-${chars(20)}`;
const xoxb = `xoxb-1234567890-1234567890123-${chars(24)}`;
const xoxp = `xoxp-1234567890-1234567890-1234567890123-${hex(32)}`;
const xapp = `xapp-1-A0123BCDEF-1234567890123-${hex(64)}`;
const slackHook = `https://hooks.slack.com/services/T01234567/B01234567/${chars(24)}`;
const stripe = `sk_live_${chars(24)}`;
const whsec = `whsec_${chars(32)}`;
const anthropic = `sk-ant-api03-${chars(93)}AA`;
const openai = `sk-proj-${chars(74)}T3BlbkFJ${chars(74)}`;
const google = `AIza${chars(35)}`;
const gocspx = `GOCSPX-${chars(28)}`;
const azureKey = `${chars(86, 'aB3dE6fG9hJ2kL5mN8pQ/rS+tU')}==`;
const azureSig = `${chars(43, 'aB3dE6fG9hJ2kL5mN8pQrStU')}%3D`;
const npm = `npm_${chars(36)}`;
const pypi = `pypi-AgEIcHlwaS5vcmc${chars(60)}`;
const twilioKey = `SK${hex(32)}`;
const twilioToken = hex(32);
const sendgrid = `SG.${chars(22)}.${chars(43)}`;
const hf = `hf_${chars(34, 'aZkQxWmPvBnLcDfGhJ')}`;
const pemBody = chars(64, 'aB3dE6fG9hJ2kL5mN8pQ/rS+tU');
const pem = `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n${pemBody}\n-----END RSA PRIVATE KEY-----`;
const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${chars(43)}`;
const bearer = chars(40);

const CASES: readonly Case[] = [
  { rule: 'aws-access-key-id', positive: `key id ${awsId} in use`, secret: awsId, nearMiss: `key id ${awsId.slice(0, 19)} is short` },
  { rule: 'aws-secret-access-key', positive: `aws_secret_access_key = ${awsSecret}`, secret: awsSecret, nearMiss: 'aws_secret_access_key is read from ~/.aws/credentials' },
  { rule: 'github-pat', positive: `token ${ghp} here`, secret: ghp, nearMiss: `token ghp_${chars(20)} here` },
  { rule: 'github-fine-grained-pat', positive: `use ${fineGrained}`, secret: fineGrained, nearMiss: `use github_pat_${chars(22)}` },
  { rule: 'github-oauth', positive: `oauth=${gho}`, secret: gho, nearMiss: `oauth gho_${chars(12)} was` },
  { rule: 'github-app-token', positive: `installation ${ghs}`, secret: ghs, nearMiss: `installation ghx_${chars(36)}` },
  { rule: 'gitlab-token', positive: `PRIVATE-TOKEN: ${glpat}`, secret: glpat, nearMiss: 'the glpat- prefix marks GitLab tokens' },
  { rule: 'slack-bot-token', positive: `SLACK ${xoxb}`, secret: xoxb, nearMiss: 'a bot token starts with xoxb-1234-' },
  { rule: 'slack-user-token', positive: `user ${xoxp}`, secret: xoxp, nearMiss: 'user tokens look like xoxp-…' },
  { rule: 'slack-app-token', positive: `app ${xapp}`, secret: xapp, nearMiss: 'xapp-1-A0123 is cut' },
  { rule: 'slack-webhook', positive: `post to ${slackHook}`, secret: slackHook, nearMiss: 'post to https://hooks.slack.com/ to notify' },
  { rule: 'stripe-key', positive: `stripe ${stripe}`, secret: stripe, nearMiss: 'use sk_live_ keys only on the server' },
  { rule: 'stripe-webhook-secret', positive: `signing ${whsec}`, secret: whsec, nearMiss: 'whsec_ marks a signing secret' },
  { rule: 'anthropic-api-key', positive: `x-api-key: ${anthropic}`, secret: anthropic, nearMiss: 'keys start with sk-ant-api03-' },
  { rule: 'openai-api-key', positive: `OPENAI ${openai}`, secret: openai, nearMiss: `sk-${chars(48)} has no OpenAI marker` },
  { rule: 'google-api-key', positive: `key=${google}`, secret: google, nearMiss: `AIza${chars(20)} is too short` },
  { rule: 'google-oauth-client-secret', positive: `client ${gocspx}`, secret: gocspx, nearMiss: 'GOCSPX- is the prefix' },
  { rule: 'azure-storage-key', positive: `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${azureKey};EndpointSuffix=core.windows.net`, secret: azureKey, nearMiss: 'AccountKey=<your key>;' },
  { rule: 'azure-sas-signature', positive: `https://a.blob.core.windows.net/c/b?sv=2022-11-02&se=2026-01-01&sig=${azureSig}`, secret: azureSig, nearMiss: 'https://example.com/?sig=abc' },
  { rule: 'npm-token', positive: `//registry.npmjs.org/:_authToken=${npm}`, secret: npm, nearMiss: 'npm_config_cache is a variable' },
  { rule: 'pypi-token', positive: `password = ${pypi}`, secret: pypi, nearMiss: 'pypi-AgEIcHlwaS5vcmc alone' },
  { rule: 'twilio-api-key', positive: `key ${twilioKey}`, secret: twilioKey, nearMiss: `key SK${hex(31)}` },
  { rule: 'twilio-auth-token', positive: `TWILIO_AUTH_TOKEN=${twilioToken}`, secret: twilioToken, nearMiss: `TWILIO_ACCOUNT_SID=AC${hex(32)}` },
  { rule: 'sendgrid-api-key', positive: `SENDGRID ${sendgrid}`, secret: sendgrid, nearMiss: 'SG.example is a domain' },
  { rule: 'huggingface-token', positive: `hf token ${hf}`, secret: hf, nearMiss: 'hf_hub_download is a function' },
  { rule: 'private-key', positive: `key:\n${pem}\nend`, secret: pem, nearMiss: '-----BEGIN PUBLIC KEY-----' },
  { rule: 'jwt', positive: `Cookie: session=${jwt}`, secret: jwt, nearMiss: 'eyJhbGciOiJIUzI1NiJ9 is a JWT header only' },
  { rule: 'connection-string-password', positive: 'postgres://app:Tr0ub4dor&3@db.internal:5432/app', secret: 'Tr0ub4dor&3', nearMiss: 'postgres://app:<password>@db.internal:5432/app' },
  { rule: 'authorization-header', positive: `Authorization: Bearer ${bearer}`, secret: bearer, nearMiss: 'Authorization: Bearer authentication is used' },
  { rule: 'password-assignment', positive: 'DB_PASSWORD="hunter2!x"', secret: 'hunter2!x', nearMiss: 'password: string' },
];

describe('secret rules', () => {
  it('every rule has a test case, and every case names a rule', () => {
    assert.deepEqual(new Set(CASES.map((c) => c.rule)), new Set(SECRET_RULES.map((r) => r.id)));
  });

  for (const c of CASES) {
    it(`${c.rule}: finds its format`, () => {
      const found = findSecrets(c.positive, { entropy: false });
      assert.deepEqual(found.map((m) => [m.rule, m.value]), [[c.rule, c.secret]]);
    });
    it(`${c.rule}: ignores a near miss`, () => {
      const found = findSecrets(c.nearMiss, { entropy: false });
      assert.deepEqual(found.map((m) => m.rule), [], JSON.stringify(found));
    });
  }

  it('placeholders and types in assignments are not secrets', () => {
    for (const text of ['password=${DB_PASSWORD}', 'api_key: "YOUR_API_KEY"', "secret = '<secret>'", 'password: changeme', 'client_secret=process.env.SECRET', 'password = ********', 'passwd: null', 'api_key=[REDACTED:github-pat]']) {
      assert.deepEqual(findSecrets(text, { entropy: false }), [], text);
    }
  });

  it('an assignment keeps its key and quotes visible: only the value is the secret', () => {
    const text = 'config {"password": "s3cr3t-Value"}';
    const [m] = findSecrets(text, { entropy: false });
    assert.equal(m?.value, 's3cr3t-Value');
    assert.equal(text.slice(m?.start, m?.end), 's3cr3t-Value');
  });
});

/** Quantifiers that repeat without bound: `*`, `+`, `{n,}`. */
const UNBOUNDED = /(?<!\\)(?:[*+]|\{\d+,\})/u;

/** The groups of a pattern source that contain an unbounded quantifier and are themselves repeated without bound. */
function nestedUnbounded(source: string): string[] {
  const found: string[] = [];
  const stack: number[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') stack.push(i);
    else if (c === ')') {
      const open = stack.pop() as number;
      const body = source.slice(open, i + 1).replace(/\[(?:\\.|[^\]\\])*\]/gu, 'C');
      const after = source.slice(i + 1, i + 8);
      if (UNBOUNDED.test(body) && /^(?:[*+]|\{\d+,\})/u.test(after)) found.push(source.slice(open, i + 1));
    }
  }
  return found;
}

describe('secret rules: no catastrophic backtracking', () => {
  it('no pattern repeats a group that itself repeats without bound (star height 1)', () => {
    for (const rule of SECRET_RULES) assert.deepEqual(nestedUnbounded(rule.pattern.source), [], rule.id);
  });

  it('the structure check catches a nested quantifier', () => {
    assert.deepEqual(nestedUnbounded('(a+)+b'), ['(a+)']);
    assert.deepEqual(nestedUnbounded('(?:ab)+c'), []);
  });

  // Each rule gets its own worst case: its keyword repeated with almost-matching bodies, in one
  // long run of token characters and separated, 200 KB each. A quadratic pattern needs ~10^10
  // steps here and does not finish; a linear one does it in one pass.
  const SIZE = 200_000;
  for (const rule of SECRET_RULES) {
    it(`${rule.id}: a 200 KB hostile input is scanned in one pass`, () => {
      const keyword = rule.keywords[0] as string;
      const inputs = [
        keyword.repeat(Math.ceil(SIZE / keyword.length)),
        `${keyword}${'a1'.repeat(SIZE / 2)}`,
        `${keyword}=`.repeat(Math.ceil(SIZE / (keyword.length + 1))),
        `${keyword}-a1B2`.repeat(Math.ceil(SIZE / (keyword.length + 5))),
        `-----BEGIN RSA PRIVATE KEY-----\n${'A'.repeat(70)}\n`.repeat(SIZE / 100),
        `x://u:${'p'.repeat(150)}`.repeat(SIZE / 160),
      ];
      for (const input of inputs) {
        const found = findSecrets(input);
        assert.ok(Array.isArray(found));
        assert.ok(input.length >= SIZE * 0.9);
      }
    });
  }
});

describe('secret rules: code is not a credential', () => {
  it('an assignment from a call or a property path is not a password', () => {
    for (const text of ['const password = field(context, "password");', 'refresh_token = response.refresh_token', 'secret = this.#secret']) {
      assert.deepEqual(findSecrets(text, { entropy: false }), [], text);
    }
  });
});

/**
 * The token formats the secret detector knows, as data: one entry per provider format, each
 * with the rule id that names it in redactions (`[REDACTED:<id>]`), what it matches, the
 * lower-case keywords one of which must occur in a text before its pattern runs (a cheap
 * prefilter), and the pattern. Written for this project from the providers' published key
 * formats; the list of providers follows what secret scanners commonly cover.
 *
 * Every pattern is linear: each starts at a token boundary (a lookbehind that excludes its own
 * body characters, so a long run of token characters has at most one start), bounds its
 * repetitions, and nests no unbounded quantifier (checked by the unit tests). Where a pattern
 * has a `secret` group only that group is the secret (an assignment keeps its key visible).
 *
 * @module
 */

/** One token format. */
export interface SecretRule {
  /** Stable id, used in redactions: `[REDACTED:<id>]`. */
  readonly id: string;
  /** What it matches, in one sentence. */
  readonly description: string;
  /** Lower-case substrings; the pattern runs only on a text that holds one of them. */
  readonly keywords: readonly string[];
  /** The pattern (flags `gd` are added); a named group `secret` marks the secret part. */
  readonly pattern: RegExp;
  /** Extra check on the secret part (placeholders, types); false drops the match. */
  readonly accept?: (secret: string) => boolean;
}

/** The start of a token: not preceded by a token character (so a long run of them has one start). */
const B = String.raw`(?<![A-Za-z0-9_-])`;
/** The end of a token: not followed by another token character. */
const E = String.raw`(?![A-Za-z0-9_\-])`;

/** Values that stand for a secret instead of being one (`<password>`, `${TOKEN}`, `your-api-key`, `changeme`, `****`). */
export const PLACEHOLDER = /^(?:<|\$|\{|%|\[|\*|x{3,}|\.{3}|process\.env|os\.environ|env\.|your|my[-_]|insert|replace|example|sample|dummy|fake|changeme|change[-_]me|placeholder|redacted|secret$|password$|passwd$|pass$|token$|none$|null$|undefined$|true$|false$|string$|str$|required$|optional$|test$|abc|123)/iu;

/** Code, not a value: a call (`field(context`) or a property path (`response.access_token`, `this.#secret`). */
const CODE = /\(|^(?:this\.)?[A-Za-z_$#][\w$#]*(?:\.[A-Za-z_$#][\w$#]*)+$/u;

/** A password-ish value: not a placeholder nor code, at least 6 characters, some letter and some digit or symbol. */
function passwordLike(value: string): boolean {
  const v = value.replace(/^['"]|['"]$/gu, '');
  if (v.length < 6 || PLACEHOLDER.test(v) || CODE.test(v)) return false;
  return /[A-Za-z]/u.test(v) && /[0-9!#$%&()*+,./:;<=>?@^_~-]/u.test(v);
}

/** The rules, most specific first (an overlap keeps the earlier rule's match). */
export const SECRET_RULES: readonly SecretRule[] = [
  // AWS access key id: AKIA (long-term), ASIA (temporary), ABIA/ACCA, then 16 upper-case base32 characters.
  { id: 'aws-access-key-id', description: 'AWS access key id (AKIA…, ASIA…)', keywords: ['akia', 'asia', 'abia', 'acca'], pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/u },
  // AWS secret access key: 40 base64 characters assigned to aws_secret_access_key (the key alone has no prefix).
  { id: 'aws-secret-access-key', description: 'AWS secret access key assigned to aws_secret_access_key / AWS_SECRET_ACCESS_KEY', keywords: ['secret_access_key', 'secretaccesskey'], pattern: /(?:secret_access_key|secretaccesskey)["']?\s{0,4}[:=]\s{0,4}["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/iu },
  // GitHub classic personal access token: ghp_ and 36 base62 characters.
  { id: 'github-pat', description: 'GitHub classic personal access token (ghp_)', keywords: ['ghp_'], pattern: new RegExp(`${B}ghp_[A-Za-z0-9]{36}${E}`, 'u') },
  // GitHub fine-grained personal access token: github_pat_, 22 characters, _, 59 characters.
  { id: 'github-fine-grained-pat', description: 'GitHub fine-grained personal access token (github_pat_)', keywords: ['github_pat_'], pattern: new RegExp(`${B}github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}${E}`, 'u') },
  // GitHub OAuth access token: gho_ and 36 characters.
  { id: 'github-oauth', description: 'GitHub OAuth access token (gho_)', keywords: ['gho_'], pattern: new RegExp(`${B}gho_[A-Za-z0-9]{36}${E}`, 'u') },
  // GitHub App tokens: user-to-server ghu_, server-to-server (installation) ghs_, refresh ghr_.
  { id: 'github-app-token', description: 'GitHub App user, installation or refresh token (ghu_, ghs_, ghr_)', keywords: ['ghu_', 'ghs_', 'ghr_'], pattern: new RegExp(`${B}gh[usr]_[A-Za-z0-9]{36,76}${E}`, 'u') },
  // GitLab tokens: personal (glpat-), deploy (gldt-), runner (glrt-), feed (glft-), OAuth app secret (gloas-), CI job (glcbt-), pipeline trigger (glptt-), agent (glagent-), incoming mail (glimt-), SCIM (glsoat-).
  { id: 'gitlab-token', description: 'GitLab access token (glpat-, gldt-, glrt-, glptt-, …)', keywords: ['glpat-', 'gldt-', 'glrt-', 'glft-', 'gloas-', 'glcbt-', 'glptt-', 'glagent-', 'glimt-', 'glsoat-'], pattern: new RegExp(`${B}gl(?:pat|dt|rt|ft|oas|cbt|ptt|agent|imt|soat)-[A-Za-z0-9_.-]{20,120}${E}`, 'u') },
  // Slack bot token: xoxb-<team>-<bot>-<24+ secret characters>.
  { id: 'slack-bot-token', description: 'Slack bot token (xoxb-)', keywords: ['xoxb-'], pattern: new RegExp(`${B}xoxb-[0-9]{8,14}-[0-9]{8,14}-[A-Za-z0-9]{20,48}${E}`, 'u') },
  // Slack user and legacy tokens: xoxp- (user), xoxe- (rotating), xoxa-/xoxr-/xoxs-/xoxo- (legacy), numeric parts then a secret.
  { id: 'slack-user-token', description: 'Slack user or legacy token (xoxp-, xoxe-, xoxa-, xoxr-, xoxs-, xoxo-)', keywords: ['xoxp-', 'xoxe-', 'xoxa-', 'xoxr-', 'xoxs-', 'xoxo-'], pattern: new RegExp(`${B}xox[pears](?:\\.xox[a-z])?-(?:[0-9]{1,14}-){1,3}[A-Za-z0-9]{20,160}${E}`, 'u') },
  // Slack app-level token: xapp-<n>-<app id>-<n>-<hex>.
  { id: 'slack-app-token', description: 'Slack app-level token (xapp-)', keywords: ['xapp-'], pattern: new RegExp(`${B}xapp-[0-9]-[A-Z0-9]{8,16}-[0-9]{8,16}-[a-f0-9]{32,80}${E}`, 'u') },
  // Slack incoming webhook URL (services/, workflows/ and triggers/ paths carry the secret).
  { id: 'slack-webhook', description: 'Slack incoming webhook URL (hooks.slack.com/services/…)', keywords: ['hooks.slack.com'], pattern: /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]{20,160}/u },
  // Stripe secret and restricted keys, live and test: sk_live_, rk_live_, sk_test_, rk_test_.
  { id: 'stripe-key', description: 'Stripe secret or restricted key (sk_live_, rk_live_, sk_test_, rk_test_)', keywords: ['sk_live_', 'rk_live_', 'sk_test_', 'rk_test_'], pattern: new RegExp(`${B}[sr]k_(?:live|test)_[A-Za-z0-9]{20,247}${E}`, 'u') },
  // Stripe webhook signing secret: whsec_ and 32+ base64 characters.
  { id: 'stripe-webhook-secret', description: 'Stripe webhook signing secret (whsec_)', keywords: ['whsec_'], pattern: new RegExp(`${B}whsec_[A-Za-z0-9+/]{32,100}${E}`, 'u') },
  // Anthropic API and admin keys: sk-ant-api03-…, sk-ant-admin01-….
  { id: 'anthropic-api-key', description: 'Anthropic API or admin key (sk-ant-api03-, sk-ant-admin01-)', keywords: ['sk-ant-'], pattern: new RegExp(`${B}sk-ant-(?:api|admin|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{32,200}${E}`, 'u') },
  // OpenAI keys: project, service-account and admin keys (sk-proj-, sk-svcacct-, sk-admin-) and classic keys (sk- and 48 characters holding T3BlbkFJ, base64 of "OpenAI").
  { id: 'openai-api-key', description: 'OpenAI API key (sk-proj-, sk-svcacct-, sk-admin-, classic sk-…T3BlbkFJ…)', keywords: ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 't3blbkfj'], pattern: new RegExp(`${B}sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,250}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})${E}`, 'u') },
  // Google API key: AIza and 35 characters.
  { id: 'google-api-key', description: 'Google API key (AIza…)', keywords: ['aiza'], pattern: new RegExp(`${B}AIza[A-Za-z0-9_-]{35}${E}`, 'u') },
  // Google OAuth client secret: GOCSPX- and 28 characters.
  { id: 'google-oauth-client-secret', description: 'Google OAuth client secret (GOCSPX-)', keywords: ['gocspx-'], pattern: new RegExp(`${B}GOCSPX-[A-Za-z0-9_-]{28}${E}`, 'u') },
  // Azure storage account key in a connection string: AccountKey= and 86 base64 characters and ==.
  { id: 'azure-storage-key', description: 'Azure storage account key (AccountKey=…== in a connection string)', keywords: ['accountkey='], pattern: /AccountKey=(?<secret>[A-Za-z0-9+/]{86}==)/u },
  // Azure shared access signature: the sig= parameter of a SAS URL or token.
  { id: 'azure-sas-signature', description: 'Azure shared access signature (sig= of a SAS URL with sv= or se=)', keywords: ['sig='], pattern: /[?&;]sig=(?<secret>[A-Za-z0-9%+/]{40,120}(?:%3D|=){0,2})(?=[&\s"';]|$)/u },
  // npm access token: npm_ and 36 characters.
  { id: 'npm-token', description: 'npm access token (npm_)', keywords: ['npm_'], pattern: new RegExp(`${B}npm_[A-Za-z0-9]{36}${E}`, 'u') },
  // PyPI upload token: pypi- then the base64 macaroon, which starts with AgEIcHlwaS5vcmc ("pypi.org").
  { id: 'pypi-token', description: 'PyPI API token (pypi-AgEIcHlwaS5vcmc…)', keywords: ['pypi-ageichlwas5vcmc'], pattern: new RegExp(`${B}pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,300}${E}`, 'u') },
  // Twilio API key SID: SK and 32 lower-case hex characters.
  { id: 'twilio-api-key', description: 'Twilio API key SID (SK and 32 hex)', keywords: ['sk'], pattern: /(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![A-Za-z0-9])/u },
  // Twilio auth token: 32 hex characters assigned to a twilio…token / TWILIO_AUTH_TOKEN.
  { id: 'twilio-auth-token', description: 'Twilio auth token (32 hex assigned to TWILIO_AUTH_TOKEN or twilio…token)', keywords: ['twilio'], pattern: /twilio[\w-]{0,20}token["']?\s{0,4}[:=]\s{0,4}["']?(?<secret>[0-9a-f]{32})(?![0-9a-f])/iu },
  // SendGrid API key: SG. 22 characters . 43 characters.
  { id: 'sendgrid-api-key', description: 'SendGrid API key (SG.….…)', keywords: ['sg.'], pattern: new RegExp(`${B}SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}${E}`, 'u') },
  // Hugging Face access token: hf_ and 34 letters.
  { id: 'huggingface-token', description: 'Hugging Face access token (hf_)', keywords: ['hf_'], pattern: new RegExp(`${B}hf_[A-Za-z]{34}${E}`, 'u') },
  // PEM private keys (RSA, EC, DSA, OpenSSH, PGP, PKCS#8, encrypted), with their body and END line when present.
  { id: 'private-key', description: 'PEM private key block (-----BEGIN … PRIVATE KEY-----)', keywords: ['private key'], pattern: /-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----(?:\r?\n[A-Za-z-]{1,20}: [^\r\n]{0,120}){0,4}[A-Za-z0-9+/=\s]{0,16384}(?:-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----)?/u },
  // JSON Web Token: three base64url parts, the first two JSON objects (eyJ = base64 of '{"').
  { id: 'jwt', description: 'JSON Web Token (eyJ….eyJ….…)', keywords: ['eyj'], pattern: new RegExp(`${B}eyJ[A-Za-z0-9_-]{8,4000}\\.eyJ[A-Za-z0-9_-]{8,8000}\\.[A-Za-z0-9_-]{8,2000}${E}`, 'u') },
  // Password in a connection string or URL: scheme://user:password@host (the password part).
  { id: 'connection-string-password', description: 'password in a URL or connection string (scheme://user:password@host)', keywords: ['://'], pattern: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:/@'"]{1,100}:(?<secret>[^\s/@'"]{1,200})@[A-Za-z0-9[]/u, accept: (s) => s.length >= 3 && !PLACEHOLDER.test(s) },
  // Authorization header values: Bearer and Basic credentials of 20+ characters.
  { id: 'authorization-header', description: 'credential after Bearer or Basic (an Authorization header value)', keywords: ['bearer', 'basic'], pattern: /\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s{1,4}(?<secret>[A-Za-z0-9._~+/-]{20,2000}={0,2})(?![A-Za-z0-9._~+/=-])/u, accept: (s) => /[0-9]/u.test(s) && /[A-Za-z]/u.test(s) },
  // Generic assignments of credentials: password=…, passwd: …, api_key = "…", client_secret=…, auth_token: … (placeholders and type names excluded).
  {
    id: 'password-assignment',
    description: 'a credential assigned a literal value (password=…, api_key: "…", client_secret=…, access_token=…)',
    keywords: ['pass', 'pwd', 'secret', 'key', 'token', 'credential'],
    pattern: /(?<![A-Za-z0-9])(?:password|passwd|passphrase|pwd|pass|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|credentials?)["']?\s{0,4}(?::=|=>|[:=])\s{0,4}(?<secret>"[^"\r\n]{1,200}"|'[^'\r\n]{1,200}'|[^\s,;'"&<>)}\]]{1,200})/iu,
    accept: passwordLike,
  },
];

/**
 * Shared vocabularies of the rules, as regular expressions over normalised (lower-case) text:
 * sensitive files and credential stores, sensitive kinds of data, verbs that move data,
 * destinations outside the user's control, and benign destinations (the caller, the user, a
 * configured place). Rules combine these rather than list attack strings, so they catch
 * rephrasings the corpus does not hold.
 *
 * @module
 */

/** Files and stores that hold credentials or keys (paths, globs and well-known names). */
export const SENSITIVE_PATH = new RegExp(
  [
    String.raw`~?/?\.ssh(?:/[\w.-]*)?`,
    String.raw`\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b`,
    String.raw`\bauthorized_keys\b`,
    String.raw`\.aws/(?:credentials|config)\b`,
    String.raw`\.azure/[\w.-]+`,
    String.raw`\.config/gcloud\b`,
    String.raw`application_default_credentials\.json`,
    String.raw`(?:^|[\s'"\x60(/~*])\.env(?:\.(?:local|production|prod|development|dev|staging))?(?![\w.-]*(?:example|sample|template|dist))\b`,
    String.raw`/etc/(?:passwd|shadow|gshadow|sudoers|master\.passwd)\b`,
    String.raw`\.(?:npmrc|pypirc|netrc|pgpass|git-credentials|bash_history|zsh_history)\b`,
    String.raw`\.docker/config\.json`,
    String.raw`\.kube/config\b`,
    String.raw`\bkubeconfig\b`,
    String.raw`\.gnupg\b`,
    String.raw`\.password-store\b`,
    String.raw`\blogin\.keychain\b`,
    String.raw`\bwallet\.dat\b`,
    String.raw`\bkeystore/`,
    String.raw`\b(?:claude_desktop_config|mcp)\.json\b`,
    String.raw`\.cursor/`,
    String.raw`\.claude\.json\b`,
    String.raw`\bcookies\.sqlite\b`,
    String.raw`\blogin data\b`,
    String.raw`\*\.(?:pem|key|p12|pfx|kdbx|keystore|jks)\b`,
    String.raw`\b[\w-]+\.(?:pem|p12|pfx|kdbx|jks)\b`,
  ].join('|'),
  'u',
);

/** Kinds of data that must not leave the machine unasked (credentials, keys, personal and conversation data, device identity). */
export const SENSITIVE_DATA = new RegExp(
  String.raw`\b(?:api[ _-]?keys?|access[ _-]?keys?|secret[ _-]?keys?|access[ _-]?tokens?|auth(?:entication|orization)?[ _-]?tokens?|bearer tokens?|refresh tokens?|session (?:tokens?|cookies?|ids?)|tokens|passwords?|passphrases?|passcodes?|credentials?|secrets|private keys?|ssh keys?|signing keys?|seed phrases?|recovery phrases?|mnemonics?|2fa codes?|otp codes?|credit[ -]?cards?|card numbers?|cvv|social security numbers?|ssns?|passport numbers?|bank accounts?|account numbers?|routing numbers?|phi|medical records?|health records?|environment variables|env vars|process\.env|system prompt|conversation (?:history|context|logs?)|chat (?:history|logs?)|(?:previous|prior|all|user) messages|clipboard(?: content)?|keystrokes|browsing history|location history|contact lists?|address books?|cookies|mac address(?:es)?|machine fingerprint|device fingerprint|hostname|running processes|harvested \w+|[a-z]+_api_key|[a-z]+_(?:secret|token)\b)`,
  'u',
);

/** Quantifiers that make a transfer wholesale (`all files`, `the complete conversation`). */
export const WHOLESALE = /\b(?:all|every|each|any|entire|complete|full|whole|a copy of)\b(?: \w+){0,4} (?:files?|data|contents?|documents?|messages?|conversations?|history|records?|results?|outputs?|inputs?|text|information|emails?|details)\b/u;

/** Verbs that move data somewhere. */
export const TRANSFER = new RegExp(
  String.raw`\b(?:send|sends|sent|sending|upload\w*|post|posts|posted|posting|forward\w*|transmit\w*|exfiltrat\w*|leak\w*|beacon\w*|stream\w* to|sync\w*|shar(?:e|es|ed|ing) (?:\w+ ){0,3}with|export\w* to|cop(?:y|ies|ied) (?:\w+ ){0,4}to|mirror\w*|relay\w*|report\w* (?:\w+ ){0,3}to|log(?:s|ged)? to|(?:store|stores|stored|cache|caches|cached|kept|saved|persisted) (?:\w+ ){0,2}(?:remotely|externally|off-?site|in the cloud|on our|on a remote|with (?:a )?third)|added to (?:\w+ ){0,2}(?:marketing|partner|advertis)\w*|pipe\w* (?:\w+ ){0,3}to|(?:e-?mail|cc|bcc|blind[- ]cop(?:y|ies))\w* (?:\w+ ){0,6}to|(?:append|embed|encode|include|put)\w* (?:\w+ ){0,4}(?:in|into|to) (?:the )?(?:url|query string|link|image url|request url)|(?:call|invoke|use) [a-z]+(?:_[a-z]+)+ (?:\w+ ){0,6}to|curl\b[^.]*?(?:-d|--data|-f|--upload-file|-t)\b)`,
  'u',
);

/** Destinations outside the user's control: a URL or address, an email, or words naming an outsider. */
export const EXTERNAL_SINK = new RegExp(
  String.raw`(?:https?://[^\s'")]+|\b(?:\d{1,3}\.){3}\d{1,3}\b|\b[\w.+-]+@[\w-]+\.[\w.-]+\b|\b(?:external\w*|remote(?:ly)?|third[- ]part(?:y|ies)|attacker\w*|collector|exfil\w*|our (?:\w+ ){0,2}(?:server|servers|team|endpoint|backend|database|analytics|collector|service|logs?)|analytics|telemetry|marketing|partners?|advertis\w*|the cloud|via cloud|cloud storage|webhook|pastebin|ngrok|requestbin|discord|telegram|off-?site|outside (?:the|your) (?:machine|network|organization)|controlled by)\b|\b[\w-]+\.(?:com|net|org|io|ru|cn|tk|xyz|top|info|biz|co)(?:/\S*)?\b|\bnc (?:\S+ )?\S+ \d{2,5}\b)`,
  'u',
);

/** Outsiders no honest tool sends data to. */
export const HOSTILE_SINK = /\b(?:attacker\w*|exfil\w*|collector|controlled by (?:the |an )?(?:attacker|us|third)|harvest\w*|evil\w*|malicious)\b/u;

/** Documentation-only domains (RFC 2606, RFC 6761): not a real destination. */
export const DOCUMENTATION_DOMAIN = /^https?:\/\/(?:[\w-]+\.)*(?:example\.(?:com|net|org)|[\w-]+\.(?:example|test|invalid|localhost))(?:[:/]|$)|^https?:\/\/(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])(?:[:/]|$)/u;

/** Destinations under the user's control (the caller, the user, the local machine, a place they configured). */
export const LOCAL_SINK = /\b(?:to|for|back to) (?:the |this )?(?:caller|user|client|requester|local\b|requesting|given|specified|selected|configured|chosen|provided)\b|\blocal(?:ly)? (?:ui|display|machine|disk|file)\b|\bfor display\b/u;

/** Words marking a clause as something the text tells the model to do. */
export const DIRECTIVE_LEAD = /^(?:(?:and|then|also|now|first|next|finally|afterwards|additionally|always|please|immediately|silently|secretly|quietly|you (?:must|should|need to|have to|will|shall)|must|be sure to|make sure to|remember to|do not forget to|don't forget to),? )*$/u;

// Package credentials keeps the secrets Bonsai's processes need when no
// environment variable gives them: model providers' API keys and forge
// tokens, by name ("anthropic", "github").
//
// They live in credentials.json in the data directory (mode 0600), each
// value sealed with AES-256-GCM under a random nonce, its name as
// additional data. The 256-bit key is kept apart from the file: in the OS
// keychain when one answers (macOS Keychain through the security command,
// the Secret Service through secret-tool on Linux desktops), else in
// credentials.key, a second 0600 file. A backup of bonsai.db and
// config.json never holds either. The file records, in the clear, each
// value's last four characters and when it was set, so that listing needs
// no key.
package credentials

package credentials

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
)

// keySize is the AES-256 key size in bytes.
const keySize = 32

// seal encrypts value under key with a fresh random nonce and name as
// additional data, so a sealed value moved to another name does not open.
// The result is base64 of nonce followed by ciphertext.
func seal(key []byte, name, value string) (string, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := aead.Seal(nonce, nonce, []byte(value), []byte(name))
	return base64.StdEncoding.EncodeToString(out), nil
}

// errOpen is the error of a value that does not decrypt.
var errOpen = errors.New("does not decrypt with the key (a key of another data directory, or a changed file)")

// unseal reverses seal.
func unseal(key []byte, name, sealed string) (string, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return "", err
	}
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(b) < aead.NonceSize() {
		return "", errOpen
	}
	plain, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], []byte(name))
	if err != nil {
		return "", errOpen
	}
	return string(plain), nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

#ifndef AUTHDECK_CCRYPTO_SHIM_H
#define AUTHDECK_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/crypto.h>
#include <openssl/bio.h>
#include <openssl/pem.h>

/* Macros that do not import into Swift, as functions. */

static inline int authdeck_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }

/* OSSL_PARAM_BLD keeps the key-name pointers until OSSL_PARAM_BLD_to_param (and the resulting
   params point at them), so the names must be C strings with static storage, not Swift temporaries. */
static inline const char *authdeck_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *authdeck_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *authdeck_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *authdeck_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *authdeck_param_priv_key(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }
static inline int authdeck_evp_pkey_keypair_selection(void) { return EVP_PKEY_KEYPAIR; }

/* EC group names as OpenSSL spells them (static storage). */
static inline const char *authdeck_group_p256(void) { return "P-256"; }
static inline const char *authdeck_group_p384(void) { return "P-384"; }
static inline const char *authdeck_group_p521(void) { return "P-521"; }


/*
 * libcrypto is not linked: AuthEngineLive opens libcrypto.so.3 with dlopen the first time it
 * hashes, draws random bytes or verifies a signature (LibraryLoader), and resolves each function
 * with dlsym, typed by these typedefs (from the real prototypes, so they cannot drift).
 * `authdeck token` with a valid cached token never loads it.
 */
typedef __typeof__(BN_bin2bn) *authdeck_BN_bin2bn_fn;
typedef __typeof__(BN_free) *authdeck_BN_free_fn;
typedef __typeof__(ECDSA_SIG_free) *authdeck_ECDSA_SIG_free_fn;
typedef __typeof__(ECDSA_SIG_new) *authdeck_ECDSA_SIG_new_fn;
typedef __typeof__(ECDSA_SIG_set0) *authdeck_ECDSA_SIG_set0_fn;
typedef __typeof__(ERR_clear_error) *authdeck_ERR_clear_error_fn;
typedef __typeof__(EVP_Digest) *authdeck_EVP_Digest_fn;
typedef __typeof__(EVP_DigestVerify) *authdeck_EVP_DigestVerify_fn;
typedef __typeof__(EVP_DigestVerifyInit) *authdeck_EVP_DigestVerifyInit_fn;
typedef __typeof__(EVP_MD_CTX_copy_ex) *authdeck_EVP_MD_CTX_copy_ex_fn;
typedef __typeof__(EVP_MD_CTX_free) *authdeck_EVP_MD_CTX_free_fn;
typedef __typeof__(EVP_MD_CTX_new) *authdeck_EVP_MD_CTX_new_fn;
typedef __typeof__(EVP_MD_CTX_set_flags) *authdeck_EVP_MD_CTX_set_flags_fn;
typedef __typeof__(EVP_PKEY_CTX_free) *authdeck_EVP_PKEY_CTX_free_fn;
typedef __typeof__(EVP_PKEY_CTX_new_from_name) *authdeck_EVP_PKEY_CTX_new_from_name_fn;
typedef __typeof__(EVP_PKEY_CTX_set_rsa_padding) *authdeck_EVP_PKEY_CTX_set_rsa_padding_fn;
typedef __typeof__(EVP_PKEY_CTX_set_rsa_pss_saltlen) *authdeck_EVP_PKEY_CTX_set_rsa_pss_saltlen_fn;
typedef __typeof__(EVP_PKEY_free) *authdeck_EVP_PKEY_free_fn;
typedef __typeof__(EVP_PKEY_fromdata) *authdeck_EVP_PKEY_fromdata_fn;
typedef __typeof__(EVP_PKEY_fromdata_init) *authdeck_EVP_PKEY_fromdata_init_fn;
typedef __typeof__(EVP_PKEY_new_raw_public_key) *authdeck_EVP_PKEY_new_raw_public_key_fn;
typedef __typeof__(EVP_sha256) *authdeck_EVP_sha256_fn;
typedef __typeof__(EVP_sha384) *authdeck_EVP_sha384_fn;
typedef __typeof__(EVP_sha512) *authdeck_EVP_sha512_fn;
typedef __typeof__(OSSL_PARAM_BLD_free) *authdeck_OSSL_PARAM_BLD_free_fn;
typedef __typeof__(OSSL_PARAM_BLD_new) *authdeck_OSSL_PARAM_BLD_new_fn;
typedef __typeof__(OSSL_PARAM_BLD_push_BN) *authdeck_OSSL_PARAM_BLD_push_BN_fn;
typedef __typeof__(OSSL_PARAM_BLD_push_octet_string) *authdeck_OSSL_PARAM_BLD_push_octet_string_fn;
typedef __typeof__(OSSL_PARAM_BLD_push_utf8_string) *authdeck_OSSL_PARAM_BLD_push_utf8_string_fn;
typedef __typeof__(OSSL_PARAM_BLD_to_param) *authdeck_OSSL_PARAM_BLD_to_param_fn;
typedef __typeof__(OSSL_PARAM_free) *authdeck_OSSL_PARAM_free_fn;
typedef __typeof__(RAND_bytes) *authdeck_RAND_bytes_fn;
typedef __typeof__(i2d_ECDSA_SIG) *authdeck_i2d_ECDSA_SIG_fn;

/* Signing (AuthEngineLive/Crypto/OpenSSLSigning.swift): key generation, private-key import, DigestSign. */
typedef __typeof__(BIO_free) *authdeck_BIO_free_fn;
typedef __typeof__(BIO_new_mem_buf) *authdeck_BIO_new_mem_buf_fn;
typedef __typeof__(BN_bn2binpad) *authdeck_BN_bn2binpad_fn;
typedef __typeof__(BN_clear_free) *authdeck_BN_clear_free_fn;
typedef __typeof__(ECDSA_SIG_get0_r) *authdeck_ECDSA_SIG_get0_r_fn;
typedef __typeof__(ECDSA_SIG_get0_s) *authdeck_ECDSA_SIG_get0_s_fn;
typedef __typeof__(EVP_DigestSign) *authdeck_EVP_DigestSign_fn;
typedef __typeof__(EVP_DigestSignInit) *authdeck_EVP_DigestSignInit_fn;
typedef __typeof__(EVP_PKEY_CTX_set_group_name) *authdeck_EVP_PKEY_CTX_set_group_name_fn;
typedef __typeof__(EVP_PKEY_generate) *authdeck_EVP_PKEY_generate_fn;
typedef __typeof__(EVP_PKEY_get_bn_param) *authdeck_EVP_PKEY_get_bn_param_fn;
typedef __typeof__(EVP_PKEY_get_octet_string_param) *authdeck_EVP_PKEY_get_octet_string_param_fn;
typedef __typeof__(EVP_PKEY_get_raw_private_key) *authdeck_EVP_PKEY_get_raw_private_key_fn;
typedef __typeof__(EVP_PKEY_get_raw_public_key) *authdeck_EVP_PKEY_get_raw_public_key_fn;
typedef __typeof__(EVP_PKEY_get_utf8_string_param) *authdeck_EVP_PKEY_get_utf8_string_param_fn;
typedef __typeof__(EVP_PKEY_is_a) *authdeck_EVP_PKEY_is_a_fn;
typedef __typeof__(EVP_PKEY_keygen_init) *authdeck_EVP_PKEY_keygen_init_fn;
typedef __typeof__(EVP_PKEY_new_raw_private_key) *authdeck_EVP_PKEY_new_raw_private_key_fn;
typedef __typeof__(PEM_read_bio_PrivateKey) *authdeck_PEM_read_bio_PrivateKey_fn;
typedef __typeof__(d2i_ECDSA_SIG) *authdeck_d2i_ECDSA_SIG_fn;

#endif

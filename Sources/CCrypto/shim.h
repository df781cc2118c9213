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

/* Macros that do not import into Swift, as functions. */

static inline int authdeck_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }

/* OSSL_PARAM_BLD keeps the key-name pointers until OSSL_PARAM_BLD_to_param (and the resulting
   params point at them), so the names must be C strings with static storage, not Swift temporaries. */
static inline const char *authdeck_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *authdeck_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *authdeck_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *authdeck_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }

/* EC group names as OpenSSL spells them (static storage). */
static inline const char *authdeck_group_p256(void) { return "P-256"; }
static inline const char *authdeck_group_p384(void) { return "P-384"; }
static inline const char *authdeck_group_p521(void) { return "P-521"; }

static inline void authdeck_openssl_free(void *ptr) { OPENSSL_free(ptr); }

#endif

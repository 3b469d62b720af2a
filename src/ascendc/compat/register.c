/*
 * libregister: the library CANN's host programs link for operator registration. The vector
 * kernel-launch samples link it without calling into it; the registration API (OpDef) belongs
 * here. Until then the library has no symbols of its own.
 */
typedef int cannon_register_placeholder_t;

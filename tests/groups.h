/* One line per test group (tests/test_NAME.c). Order is run order. */
TL_GROUP(bytes)
TL_GROUP(opts)
TL_GROUP(str)
TL_GROUP(index)
TL_GROUP(ctf_tsdl)
TL_GROUP(ctf_parse)
TL_GROUP(ctf_decode)

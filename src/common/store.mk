# Job-data segments (jseg.h) and the process-wide store with the reserved-key
# retrieval rules (store.h), with their tests.
noinst_HEADERS += src/common/jseg.h src/common/store.h

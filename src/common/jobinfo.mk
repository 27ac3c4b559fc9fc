# Compiling register_nspace / register_resources descriptions into job-data
# segments (jobinfo.h), with its tests.
noinst_HEADERS += src/common/jobinfo.h

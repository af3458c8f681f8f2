/* Stand-ins for the XRay runtime API, so that app.cc links without the
** runtime into a small binary with the same instrumentation map. */
int __xray_log_select_mode(const char *m){ (void)m; return 0; }
int __xray_log_init_mode(const char *m, const char *c){ (void)m; (void)c; return 0; }
int __xray_patch(void){ return 0; }
int __xray_unpatch(void){ return 0; }
int __xray_log_finalize(void){ return 0; }
int __xray_log_flushLog(void){ return 0; }
void __xray_CustomEvent(void){}

// What jibod_gauss_install says (gauss.c, gauss.go).
#define JIBOD_GAUSS_ON 1
#define JIBOD_GAUSS_OTHER_MODEL 0
#define JIBOD_GAUSS_LAYOUT -1
#define JIBOD_GAUSS_MODEL -2
#define JIBOD_GAUSS_NO_SIMD -3
#define JIBOD_GAUSS_MEMORY -4

struct ps_decoder_s;
int jibod_gauss_install(struct ps_decoder_s *ps);
int jibod_gauss_off(void);
void jibod_gauss_set_off(int on);
void jibod_gauss_set_check_all(int on);
void jibod_gauss_set_narrow(int on);
int jibod_gauss_width(struct ps_decoder_s *ps);
void jibod_gauss_set_corrupt(int on);
long jibod_gauss_checked(void);
long jibod_gauss_vec_frames(void);

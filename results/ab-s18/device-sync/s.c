#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  const char*path=argc>4?argv[4]:"/var/tmp/synct.dat"; size_t fsz=64<<20; int n=atoi(argv[2]); size_t bs=atoi(argv[3]);
  int mode=atoi(argv[1]);
  int fd=open(path,O_RDWR|O_CREAT,0644); char*z=calloc(1,1<<20); for(size_t o=0;o<fsz;o+=1<<20) pwrite(fd,z,1<<20,o); fdatasync(fd); close(fd);
  int fl=O_RDWR; if(mode==1) fl|=O_DIRECT|O_DSYNC; if(mode==3) fl|=O_DSYNC; if(mode==4) fl|=O_DIRECT;
  fd=open(path,fl); void*buf; posix_memalign(&buf,4096,bs); memset(buf,7,bs);
  double*lat=malloc(n*sizeof(double)); size_t off=0;
  for(int i=0;i<n;i++){ double t=now();
    if(mode==2){ struct iovec v={buf,bs}; pwritev2(fd,&v,1,off,RWF_DSYNC);} else { pwrite(fd,buf,bs,off); if(mode==0||mode==4) fdatasync(fd);}
    lat[i]=now()-t; off+=bs; if(off+bs>fsz) off=0; }
  qsort(lat,n,sizeof(double),cmp);
  printf("mode %d bs %zu: p50 %.0f us p90 %.0f p99 %.0f\n",mode,bs,lat[n/2]*1e6,lat[n*9/10]*1e6,lat[n*99/100]*1e6);
}

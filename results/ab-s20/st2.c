#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  size_t fsz=256<<20; int mode=atoi(argv[2]);
  int fd=open(argv[1],O_RDWR|O_CREAT,0644);
  char*buf; posix_memalign((void**)&buf,4096,1<<20); memset(buf,0,1<<20);
  for(size_t o=0;o<fsz;o+=1<<20) pwrite(fd,buf,1<<20,o);
  fdatasync(fd); close(fd);
  fd=open(argv[1],O_RDWR|(mode?O_DIRECT|O_DSYNC:0));
  int n=8000; double*lat=malloc(n*sizeof(double)); size_t off=0, sz=24576;
  memset(buf,7,sz);
  double t00=now();
  for(int i=0;i<n;i++){ double t0=now(); pwrite(fd,buf,sz,off); if(!mode) fdatasync(fd); lat[i]=now()-t0; off+=sz; if(off+sz>fsz) off=0; }
  double tot=now()-t00;
  qsort(lat,n,sizeof(double),cmp);
  printf("mode %d 24KiB x %d in %.1f s: p50 %.0f p90 %.0f p99 %.0f p99.9 %.0f max %.0f us\n",mode,n,tot,lat[n/2]*1e6,lat[n*9/10]*1e6,lat[n*99/100]*1e6,lat[n*999/1000]*1e6,lat[n-1]*1e6);
  return 0;
}

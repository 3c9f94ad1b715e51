#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int fd; int n; size_t bs=16384; size_t fsz=64<<20; int threads;
void*run(void*arg){ long id=(long)arg; char*buf=malloc(bs); memset(buf,7,bs); size_t off=id*bs;
  for(int i=0;i<n;i++){ pwrite(fd,buf,bs,off); fdatasync(fd); off+=threads*bs; if(off+bs>fsz) off=id*bs; } return 0;}
int main(int argc,char**argv){ threads=atoi(argv[1]); n=atoi(argv[2]);
  const char*path="/var/tmp/synct.dat"; fd=open(path,O_RDWR|O_CREAT,0644); char*z=calloc(1,1<<20); for(size_t o=0;o<fsz;o+=1<<20) pwrite(fd,z,1<<20,o); fdatasync(fd);
  pthread_t th[8]; double t=now(); for(long i=0;i<threads;i++) pthread_create(&th[i],0,run,(void*)i); for(int i=0;i<threads;i++) pthread_join(th[i],0);
  double el=now()-t; printf("%d threads same file: %.0f syncs/s, %.0f us per sync per thread\n",threads,threads*n/el, el/n*1e6); }

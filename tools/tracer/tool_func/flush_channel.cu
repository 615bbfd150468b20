// Launched by the tracer after each traced kernel: pushes the end marker and drains the channel.
#include "../common.h"
#include "utils/channel.hpp"

extern "C" __global__ void flush_channel(ChannelDev* ch_dev) {
  gp_record_t end;
  end.cta_x = -1;
  end.has_addrs = 0;
  ch_dev->push(&end, sizeof(gp_record_t));
  ch_dev->flush();
}

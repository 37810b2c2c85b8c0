/* Prints the sizes and offsets IbvLayoutsTest holds, from rdma-core v44's verbs.h:
 *   git show v44.0:libibverbs/verbs.h > inc/infiniband/verbs.h (and verbs_api.h; kernel-headers/rdma/ib_user_ioctl_verbs.h
 *   into inc/infiniband/ too, where verbs_api.h includes it from)
 *   gcc -I inc offsets.c -o offsets && ./offsets */
#include <stdio.h>
#include <infiniband/verbs.h>
#define S(t) printf("%s size %zu\n", #t, sizeof(struct t));
#define O(t,f) printf("%s.%s %zu\n", #t, #f, offsetof(struct t, f));
int main(){
S(ibv_device) O(ibv_device,node_type) O(ibv_device,transport_type) O(ibv_device,name)
S(ibv_context) O(ibv_context,ops) O(ibv_context,ops.poll_cq) O(ibv_context,ops.req_notify_cq) O(ibv_context,ops.post_send) O(ibv_context,ops.post_recv) O(ibv_context,cmd_fd) O(ibv_context,async_fd) O(ibv_context,num_comp_vectors) O(ibv_context,abi_compat)
S(ibv_context_ops)
S(verbs_context) O(verbs_context,modify_cq) O(verbs_context,sz) O(verbs_context,context)
S(ibv_device_attr) O(ibv_device_attr,max_qp_wr) O(ibv_device_attr,device_cap_flags) O(ibv_device_attr,max_cqe) O(ibv_device_attr,max_qp_rd_atom) O(ibv_device_attr,max_qp_init_rd_atom) O(ibv_device_attr,max_pkeys) O(ibv_device_attr,phys_port_cnt)
S(ibv_port_attr) O(ibv_port_attr,active_mtu) O(ibv_port_attr,gid_tbl_len) O(ibv_port_attr,link_layer) O(ibv_port_attr,port_cap_flags2)
S(ibv_async_event) O(ibv_async_event,event_type)
S(ibv_wc) O(ibv_wc,status) O(ibv_wc,opcode) O(ibv_wc,byte_len) O(ibv_wc,imm_data) O(ibv_wc,invalidated_rkey) O(ibv_wc,qp_num) O(ibv_wc,wc_flags)
S(ibv_pd) S(ibv_mr) O(ibv_mr,addr) O(ibv_mr,length) O(ibv_mr,lkey) O(ibv_mr,rkey)
S(ibv_comp_channel) O(ibv_comp_channel,fd)
S(ibv_cq) O(ibv_cq,channel) O(ibv_cq,cqe)
S(ibv_qp) O(ibv_qp,qp_num) O(ibv_qp,qp_type) O(ibv_qp,send_cq) O(ibv_qp,recv_cq)
S(ibv_qp_cap) S(ibv_qp_init_attr) O(ibv_qp_init_attr,cap) O(ibv_qp_init_attr,qp_type)
S(ibv_global_route) S(ibv_ah_attr) O(ibv_ah_attr,is_global) O(ibv_ah_attr,port_num)
S(ibv_qp_attr) O(ibv_qp_attr,path_mtu) O(ibv_qp_attr,rq_psn) O(ibv_qp_attr,sq_psn) O(ibv_qp_attr,dest_qp_num) O(ibv_qp_attr,qp_access_flags) O(ibv_qp_attr,ah_attr) O(ibv_qp_attr,ah_attr.grh.sgid_index) O(ibv_qp_attr,ah_attr.grh.hop_limit) O(ibv_qp_attr,pkey_index) O(ibv_qp_attr,max_rd_atomic) O(ibv_qp_attr,max_dest_rd_atomic) O(ibv_qp_attr,min_rnr_timer) O(ibv_qp_attr,port_num) O(ibv_qp_attr,timeout) O(ibv_qp_attr,retry_cnt) O(ibv_qp_attr,rnr_retry)
S(ibv_sge) O(ibv_sge,length) O(ibv_sge,lkey)
S(ibv_send_wr) O(ibv_send_wr,num_sge) O(ibv_send_wr,opcode) O(ibv_send_wr,send_flags) O(ibv_send_wr,imm_data) O(ibv_send_wr,invalidate_rkey) O(ibv_send_wr,wr.rdma.remote_addr) O(ibv_send_wr,wr.rdma.rkey) O(ibv_send_wr,qp_type.xrc.remote_srqn)
S(ibv_recv_wr) O(ibv_recv_wr,num_sge)
S(ibv_modify_cq_attr) O(ibv_modify_cq_attr,moderate.cq_count) O(ibv_modify_cq_attr,moderate.cq_period)
return 0;}

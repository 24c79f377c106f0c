//! The host's own addresses: never a sandbox's to reach, whatever its rules say.

use std::net::Ipv4Addr;

use crate::spec::private_net;

/// Whether `address` is the host's own (as the host is now) or pasta's gateway: never
/// for a sandbox, whatever its rules say (the LAN's ranges the rules refuse).
pub fn is_host_address(address: Ipv4Addr) -> bool {
    address.to_string() == private_net::GATEWAY || host_addresses().contains(&address)
}

/// The host's own IPv4 addresses (every interface's).
pub fn host_addresses() -> Vec<Ipv4Addr> {
    let mut addresses = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs allocates the list, read below and freed with freeifaddrs.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return addresses;
    }
    let mut entry = list;
    while !entry.is_null() {
        // SAFETY: `entry` is a node of the list getifaddrs returned.
        let addr = unsafe { (*entry).ifa_addr };
        // SAFETY: an AF_INET ifa_addr points to a sockaddr_in.
        if !addr.is_null() && unsafe { (*addr).sa_family } == libc::AF_INET as libc::sa_family_t {
            // SAFETY: its family is AF_INET, so `addr` points to a sockaddr_in.
            let inet = unsafe { &*(addr as *const libc::sockaddr_in) };
            let address = Ipv4Addr::from(u32::from_be(inet.sin_addr.s_addr));
            if !addresses.contains(&address) {
                addresses.push(address);
            }
        }
        // SAFETY: as above.
        entry = unsafe { (*entry).ifa_next };
    }
    // SAFETY: the list came from getifaddrs.
    unsafe { libc::freeifaddrs(list) };
    addresses
}

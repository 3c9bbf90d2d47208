include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { invert { invert { invert { invert { invert { invert { invert { invert { invert { 
        invert { action me.act() }
        } } } } } } } } } } 
        } } } } } } } } } } 
        } } } } } } } } } } 
        } } } } } } } } } } 
        } } } } } } } } } } 
        } } } } } } } } } } 
        } } } } } } } } } } 
        } } } } } } } } } } 
        } } } } } } } } } } 
        } } } } } } } } } } 
    }
}
fn main() {}
